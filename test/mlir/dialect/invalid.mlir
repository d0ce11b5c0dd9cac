// The verifiers of the pallas dialect reject malformed ops.
// RUN: pallas-opt %s -split-input-file -verify-diagnostics

pallas.func @f attributes {arg_names = ["x"], kind = "def"} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has 2 origins for 1 operands}}
  %0 = pallas.prim "jnp.zeros"(%x) {arg_indices = array<i64: -1>, keywords = [""], origins = ["value", "value"]} : (!pallas.value) -> !pallas.value
}

// -----

pallas.func @f attributes {arg_names = ["x"], kind = "def"} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has 0 arg_indices for 1 operands}}
  %0 = pallas.call @f(%x) {arg_indices = array<i64>, keywords = [""], origins = ["value"]} : (!pallas.value) -> !pallas.value
}

// -----

pallas.func @f attributes {arg_names = ["x"], kind = "def"} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has 2 keywords for 1 operands}}
  %0 = pallas.call_indirect %x(%x) {arg_indices = array<i64: -1>, keywords = ["", "a"], origins = ["value"]} : (!pallas.value, !pallas.value) -> !pallas.value
}

// -----

pallas.func @f attributes {arg_names = ["x"], kind = "def"} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{operand 0: arg_indices must be >= 0 exactly for origin 'arg'}}
  %0 = pallas.opaque "tuple"(%x) {arg_indices = array<i64: -1>, origins = ["arg"]} : (!pallas.value) -> !pallas.value
}

// -----

pallas.func @f attributes {arg_names = ["x"], kind = "def"} {
} {
^bb0(%x: !pallas.value):
  // expected-error @below {{has unknown origin 'heap'}}
  %0 = pallas.opaque "tuple"(%x) {arg_indices = array<i64: -1>, origins = ["heap"]} : (!pallas.value) -> !pallas.value
}

// -----

// expected-error @below {{has 0 body arguments for 1 arg_names}}
pallas.func @f attributes {arg_names = ["x"], kind = "def"} {
} {
}

// -----

// expected-error @below {{has unknown kind 'class'}}
pallas.func @f attributes {arg_names = [], kind = "class"} {
} {
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has unknown launch api 'pl.run'}}
  %0 = pallas.launch "pl.run" {body_text = "k", form = "call", interpret_source = "absent", paths = ["compiled"]}
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has unknown form 'macro'}}
  %0 = pallas.launch "pl.pallas_call" {body_text = "k", form = "macro", interpret_source = "absent", paths = ["compiled"]}
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{selects no execution path}}
  %0 = pallas.launch "pl.pallas_call" {body_text = "k", form = "call", interpret_source = "absent", paths = []}
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has unknown path "jit"}}
  %0 = pallas.launch "pl.pallas_call" {body_text = "k", form = "call", interpret_source = "absent", paths = ["jit"]}
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has body_file without body}}
  %0 = pallas.launch "pl.pallas_call" {body_file = "k.py", body_text = "k", form = "call", interpret_source = "absent", paths = ["compiled"]}
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has 0 arg_origins for 1 block arguments}}
  %0 = pallas.scope "pl.run_scoped"() {arg_indices = array<i64>, arg_origins = [], keywords = [], origins = []} : () -> !pallas.value {
  ^bb0(%r: !pallas.ref):
  }
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has invalid block argument origin 'arg'}}
  %0 = pallas.scope "pl.run_scoped"() {arg_indices = array<i64>, arg_origins = ["arg"], keywords = [], origins = []} : () -> !pallas.value {
  ^bb0(%r: !pallas.ref):
  }
}

// -----

pallas.func @f attributes {arg_names = [], kind = "def"} {
} {
  // expected-error @below {{has 2 allocations for 1 block arguments}}
  %0 = pallas.scope "pl.run_scoped"() {allocations = ["smem", "smem"], arg_indices = array<i64>, arg_origins = ["run_scoped"], keywords = [], origins = []} : () -> !pallas.value {
  ^bb0(%r: !pallas.ref):
  }
}
