// The verifiers of the pallas dialect reject malformed ops.
// RUN: pallas-opt %s -split-input-file -verify-diagnostics

pallas.func def @f attributes {arg_names = ["x"]} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has 2 origins for 1 operands}}
  %0 = pallas.prim "jnp.zeros"(%x) origins [value, value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value
}

// -----

pallas.func def @f attributes {arg_names = ["x"]} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has 0 arg_indices for 1 operands}}
  %0 = pallas.call @f(%x) origins [value] {arg_indices = array<i64>, keywords = [""]} : (!pallas.value) -> !pallas.value
}

// -----

pallas.func def @f attributes {arg_names = ["x"]} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has 2 keywords for 1 operands}}
  %0 = pallas.call_indirect %x(%x) origins [value] {arg_indices = array<i64: -1>, keywords = ["", "a"]} : (!pallas.value, !pallas.value) -> !pallas.value
}

// -----

pallas.func def @f attributes {arg_names = ["x"]} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{operand 0: arg_indices must be >= 0 exactly for origin 'arg'}}
  %0 = pallas.opaque "tuple"(%x) origins [arg] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value
}

// -----

pallas.func def @f attributes {arg_names = ["x"]} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{unknown origin 'heap'}}
  %0 = pallas.opaque "tuple"(%x) origins [heap] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value
}

// -----

// expected-error @below {{has 0 body arguments for 1 arg_names}}
pallas.func def @f attributes {arg_names = ["x"]} {
} {
}

// -----

// expected-error @below {{failed to parse Pallas_FuncKindAttr parameter 'value' which is to be a `::pallas::dialect::FuncKind`}}
// expected-error @below {{to be one of: def, method, module}}
pallas.func class @f attributes {arg_names = []} {
} {
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{has unknown launch api 'pl.run'}}
  %0 = pallas.launch "pl.run" call paths [compiled] interpret absent {body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{failed to parse Pallas_LaunchFormAttr parameter}}
  // expected-error @below {{to be one of: call, decorator, partial}}
  %0 = pallas.launch "pl.pallas_call" macro paths [compiled] interpret absent {body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{selects no execution path}}
  %0 = pallas.launch "pl.pallas_call" call paths [] interpret absent {body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{unknown path 'jit'}}
  %0 = pallas.launch "pl.pallas_call" call paths [jit] interpret absent {body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{has body_file without body}}
  %0 = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent {body_file = "k.py", body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{has 0 arg_origins for 1 block arguments}}
  %0 = pallas.scope "pl.run_scoped"() origins [] arg_origins [] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value {
  ^bb0(%r: !pallas.ref):
  }
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{has invalid block argument origin 'arg'}}
  %0 = pallas.scope "pl.run_scoped"() origins [] arg_origins [arg] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value {
  ^bb0(%r: !pallas.ref):
  }
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{has 2 allocations for 1 block arguments}}
  %0 = pallas.scope "pl.run_scoped"() origins [] arg_origins [run_scoped] allocations [smem, smem] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value {
  ^bb0(%r: !pallas.ref):
  }
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{failed to parse Pallas_InterpretSourceAttr parameter}}
  // expected-error @below {{to be one of: absent, literal, module_constant, default_param, local, interpret_gpu_params, context, param, condition, unknown}}
  %0 = pallas.launch "pl.pallas_call" call paths [compiled] interpret maybe {body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{unknown alloc 'vmem'}}
  %0 = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [smem, vmem] {body_text = "k"}
}

// -----

pallas.func def @f attributes {arg_names = []} {
} {
  // expected-error @below {{failed to parse Pallas_ConstantKindAttr parameter}}
  // expected-error @below {{to be one of: int, float, str, bool, none}}
  %0 = pallas.constant complex "1j"
}

// -----

// An enum attribute written out in the generic form must hold a known case.
// expected-error @below {{failed to parse Pallas_OriginAttr parameter}}
// expected-error @below {{to be one of: value, arg, run_scoped, acc, run_state, pipeline, ref}}
"pallas.opaque"() <{arg_indices = array<i64>, origins = [#pallas<origin heap>], what = "x"}> : () -> !pallas.value

// -----

pallas.func def @f attributes {arg_names = ["x"]} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{unknown arg_type 'tensor'}}
  %0 = pallas.inline_mgpu(%x) origins [value] arg_type_kinds [tensor] {arg_indices = array<i64: -1>, arg_types_count = 1 : i64} : (!pallas.value) -> !pallas.value {
  }
}
