// The JAX overlay for arrays and dtypes outside kernels: what the program
// builds before it launches a kernel is shapes and dtypes, and the checks
// (which layout a dtype picks, a shape validated before the launch, the
// shared memory of the blocks) read them.
//
//  * A dtype is a library object whatever it is spelled: jnp.float32,
//    np.float32, jnp.dtype("float32"), np.dtype(x.dtype), x.dtype all
//    compare equal (their ExternalObj identity is "dtype:float32"), and
//    .itemsize, .name, .kind and .dtype read what NumPy gives.
//  * An array (jax.Array here, NumPy's too) is its shape and dtype: made by
//    jnp/np ones, zeros, empty, full, *_like, arange, linspace, eye, asarray
//    of a nested list, jax.random.normal / uniform / randint / bernoulli,
//    np.random.randn / rand and a default_rng Generator's draws; reshape
//    (with -1), astype, T / transpose, elementwise arithmetic (broadcast),
//    .ndim, .size, .itemsize and .nbytes follow. Default dtypes are JAX's
//    without x64 (float32, int32) and NumPy's (float64, int64).
// What is not modelled stays Unknown.
#include "PallasOverlayState.h"
#include "ShapeEvalInternal.h"
#include "ShapeValue.h"

#include <cmath>

namespace pallas::analysis::passes {

using namespace eval;

namespace {

PallasOverlay::State& stateOf(Interpreter& in) {
  return in.overlay<PallasOverlay>()->state();
}

ClassObj* arrayClass(Interpreter& in) {
  return in.externalClass("jax.Array");
}

std::optional<int64_t> intOf(const Value* v) {
  Object* o = v ? v->single() : nullptr;
  if (auto* i = llvm::dyn_cast_or_null<IntObj>(o))
    return i->v;
  return std::nullopt;
}

std::optional<double> numberOf(const Value* v) {
  Object* o = v ? v->single() : nullptr;
  if (auto* i = llvm::dyn_cast_or_null<IntObj>(o))
    return static_cast<double>(i->v);
  if (auto* f = llvm::dyn_cast_or_null<FloatObj>(o))
    return f->v;
  return std::nullopt;
}

// ---- dtypes ---------------------------------------------------------------------------

// NumPy's one-letter codes and the names np.dtype accepts beside the types'.
std::string dtypeLeafOfString(std::string s) {
  static const std::map<std::string, std::string> codes = {
      {"f2", "float16"}, {"f4", "float32"},    {"f8", "float64"}, {"i1", "int8"},
      {"i2", "int16"},   {"i4", "int32"},      {"i8", "int64"},   {"u1", "uint8"},
      {"u2", "uint16"},  {"u4", "uint32"},     {"u8", "uint64"},  {"b1", "bool_"},
      {"?", "bool_"},    {"float", "float64"}, {"int", "int64"},  {"complex", "complex128"}};
  if (!s.empty() && (s[0] == '<' || s[0] == '=' || s[0] == '|'))
    s = s.substr(1);
  if (auto it = codes.find(s); it != codes.end())
    return it->second;
  s = shape::detail::canonicalDtype(s);
  return shape::dtypeBits(s) ? s : std::string();
}

// The dtype leaf ("float32") of a value, "" when it is not one dtype.
std::string dtypeLeaf(Interpreter& in, const Value* v) {
  Object* o = v ? v->single() : nullptr;
  if (!o)
    return {};
  if (auto* e = llvm::dyn_cast<ExternalObj>(o)) {
    if (llvm::StringRef(e->identity).starts_with("dtype:"))
      return e->identity.substr(6);
    return shape::detail::dtypeOfName(in.canonical(e->qualname));
  }
  if (auto* s = llvm::dyn_cast<StrObj>(o))
    return dtypeLeafOfString(s->v);
  if (auto* inst = llvm::dyn_cast<InstanceObj>(o)) // an array or a ShapeDtypeStruct
    if (const Value* d = inst->attrs.find("dtype"))
      return dtypeLeaf(in, d);
  // The Python types as dtypes: float -> float64 in NumPy (JAX: float32).
  if (auto* b = llvm::dyn_cast<BuiltinObj>(o)) {
    if (b->name == "builtins.float")
      return "float64";
    if (b->name == "builtins.int")
      return "int64";
    if (b->name == "builtins.bool")
      return "bool_";
  }
  return {};
}

Value dtypeValue(Interpreter& in, const std::string& leaf, mlir::Operation* site,
                 const std::string& qualname = {}) {
  auto* e = in.heap().make<ExternalObj>(qualname.empty() ? "jax.numpy." + leaf : qualname);
  e->identity = "dtype:" + leaf;
  return Value(e, site);
}

// A dtype's attribute as NumPy reads it.
Value dtypeAttr(Interpreter& in, const std::string& leaf, llvm::StringRef name,
                mlir::Operation* site) {
  int bits = shape::dtypeBits(leaf).value_or(0);
  if (name == "itemsize")
    return in.integer(std::max(1, bits / 8), site);
  if (name == "name")
    return in.str(leaf == "bool_" ? "bool" : leaf, site);
  if (name == "kind") {
    llvm::StringRef l(leaf);
    const char* k = l.starts_with("bool")                       ? "b"
                    : l.starts_with("uint")                     ? "u"
                    : l.starts_with("int")                      ? "i"
                    : l.starts_with("complex")                  ? "c"
                    : l.starts_with("float") || l == "bfloat16" ? "f"
                                                                : "V";
    return in.str(k, site);
  }
  if (name == "dtype" || name == "type")
    return dtypeValue(in, leaf, site);
  return Value();
}

// ---- arrays ---------------------------------------------------------------------------

// A shape argument: an int or a sequence of ints (each may be unknown).
Value shapeOf(Interpreter& in, const Value* v, mlir::Operation* site) {
  if (!v)
    return in.tuple({}, site);
  Object* o = v->single();
  if (o && o->kind == Kind::Int)
    return in.tuple({*v}, site);
  if (o && (o->kind == Kind::Tuple || o->kind == Kind::List)) {
    Interpreter::Elements e = in.elements(*v, site);
    if (e.exact)
      return in.tuple(e.items, site);
  }
  return in.unknown("an array's shape", site);
}

std::optional<std::vector<int64_t>> dimsOf(Interpreter& in, const Value& shape,
                                           mlir::Operation* site) {
  auto* t = llvm::dyn_cast_or_null<TupleObj>(shape.single());
  if (!t)
    return std::nullopt;
  std::vector<int64_t> out;
  for (const Value& d : t->elems) {
    std::optional<int64_t> n = intOf(&d);
    if (!n)
      return std::nullopt;
    out.push_back(*n);
  }
  (void)in;
  (void)site;
  return out;
}

Value makeArrayValue(Interpreter& in, Value shape, const std::string& leaf, mlir::Operation* site) {
  auto* inst = in.heap().make<InstanceObj>(arrayClass(in));
  inst->attrs.set("shape", std::move(shape));
  inst->attrs.set("dtype",
                  leaf.empty() ? in.unknown("an array's dtype", site) : dtypeValue(in, leaf, site));
  return Value(inst, site);
}

InstanceObj* arrayOf(const Value* v) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(v ? v->single() : nullptr);
  return inst && inst->cls->external == "jax.Array" ? inst : nullptr;
}

// The dtype a creator gives: `dtype=` when given, else the library's default.
std::string dtypeArg(Interpreter& in, const CallArgs& args, size_t at, const std::string& dflt) {
  const Value* d = args.get(at, "dtype");
  if (!d || (d->single() && d->single()->kind == Kind::None))
    return dflt;
  return dtypeLeaf(in, d);
}

bool isNumpy(const std::string& api) {
  return llvm::StringRef(api).starts_with("numpy.");
}

std::string floatDefault(const std::string& api) {
  return isNumpy(api) ? "float64" : "float32";
}
std::string intDefault(const std::string& api) {
  return isNumpy(api) ? "int64" : "int32";
}

// The shape of a nested list / tuple of numbers, and whether any is a float.
std::optional<std::vector<int64_t>> nestedShape(Interpreter& in, const Value& v, bool& floats,
                                                mlir::Operation* site, int depth = 0) {
  Object* o = v.single();
  if (!o || depth > 8)
    return std::nullopt;
  if (o->kind == Kind::Int || o->kind == Kind::Bool)
    return std::vector<int64_t>{};
  if (o->kind == Kind::Float) {
    floats = true;
    return std::vector<int64_t>{};
  }
  if (o->kind != Kind::List && o->kind != Kind::Tuple)
    return std::nullopt;
  Interpreter::Elements e = in.elements(v, site);
  if (!e.exact)
    return std::nullopt;
  std::optional<std::vector<int64_t>> inner;
  for (const Value& item : e.items) {
    auto s = nestedShape(in, item, floats, site, depth + 1);
    if (!s || (inner && *inner != *s))
      return std::nullopt;
    inner = s;
  }
  std::vector<int64_t> out{static_cast<int64_t>(e.items.size())};
  if (inner)
    out.insert(out.end(), inner->begin(), inner->end());
  return out;
}

Value intsTuple(Interpreter& in, const std::vector<int64_t>& dims, mlir::Operation* site) {
  std::vector<Value> items;
  items.reserve(dims.size());
  for (int64_t d : dims)
    items.push_back(in.integer(d, site));
  return in.tuple(items, site);
}

// The leaf after a module prefix: "jnp.ones" / "numpy.ones" / "numpy.random.randn".
std::string leafOf(const std::string& api) {
  size_t dot = api.rfind('.');
  return dot == std::string::npos ? api : api.substr(dot + 1);
}

std::optional<Value> creator(Interpreter& in, const std::string& api, const CallArgs& args,
                             mlir::Operation* site) {
  std::string leaf = leafOf(api);
  std::string module = api.substr(0, api.size() - leaf.size());
  bool jnpOrNp = module == "jnp." || module == "numpy.";
  bool random = module == "jax.random." || module == "numpy.random.";
  if (jnpOrNp && (leaf == "ones" || leaf == "zeros" || leaf == "empty" || leaf == "full")) {
    std::string d = dtypeArg(in, args, leaf == "full" ? 2 : 1, "");
    if (d.empty() && !args.get(leaf == "full" ? 2 : 1, "dtype")) {
      d = floatDefault(api);
      // jnp.full(shape, 3) is an int array (the fill value's type).
      if (leaf == "full")
        if (const Value* fill = args.get(1, "fill_value"); fill && intOf(fill))
          d = intDefault(api);
    }
    return makeArrayValue(in, shapeOf(in, args.get(0, "shape"), site), d, site);
  }
  if (jnpOrNp && (leaf == "ones_like" || leaf == "zeros_like" || leaf == "empty_like" ||
                  leaf == "full_like")) {
    InstanceObj* like = arrayOf(args.get(0, "a"));
    Value shape = like ? *like->attrs.find("shape") : in.unknown("an array's shape", site);
    if (const Value* s = args.get(leaf == "full_like" ? 3 : 2, "shape"); s && !s->isBottom())
      shape = shapeOf(in, s, site);
    std::string d = dtypeArg(in, args, leaf == "full_like" ? 2 : 1,
                             like ? dtypeLeaf(in, like->attrs.find("dtype")) : "");
    return makeArrayValue(in, shape, d, site);
  }
  if (jnpOrNp && leaf == "arange") {
    std::vector<const Value*> nums;
    for (size_t i = 0; i < 3; ++i)
      if (const Value* v = args.get(i, i == 0 ? "start" : i == 1 ? "stop" : "step"))
        nums.push_back(v);
    bool floats = false, known = !nums.empty();
    std::vector<double> n;
    for (const Value* v : nums) {
      std::optional<double> x = numberOf(v);
      known = known && x;
      floats = floats || (v->single() && v->single()->kind == Kind::Float);
      n.push_back(x.value_or(0));
    }
    std::string d = dtypeArg(in, args, 3, floats ? floatDefault(api) : intDefault(api));
    if (!known)
      return makeArrayValue(in, in.tuple({in.unknown("the length of an arange", site)}, site), d,
                            site);
    double start = n.size() > 1 ? n[0] : 0, stop = n.size() > 1 ? n[1] : n[0],
           step = n.size() > 2 ? n[2] : 1;
    if (step == 0)
      return std::nullopt;
    int64_t len = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop - start) / step)));
    return makeArrayValue(in, intsTuple(in, {len}, site), d, site);
  }
  if (jnpOrNp && leaf == "linspace") {
    const Value* num = args.get(2, "num");
    Value len = num ? *num : in.integer(50, site);
    return makeArrayValue(in, in.tuple({len}, site), dtypeArg(in, args, 5, floatDefault(api)),
                          site);
  }
  if (jnpOrNp && (leaf == "eye" || leaf == "identity")) {
    const Value* n = args.get(0, "N");
    const Value* m = leaf == "eye" ? args.get(1, "M") : nullptr;
    if (!n)
      return std::nullopt;
    Value cols = m && !(m->single() && m->single()->kind == Kind::None) ? *m : *n;
    return makeArrayValue(in, in.tuple({*n, cols}, site),
                          dtypeArg(in, args, leaf == "eye" ? 3 : 1, floatDefault(api)), site);
  }
  if (jnpOrNp && (leaf == "asarray" || leaf == "array")) {
    const Value* x = args.get(0, "object");
    if (!x)
      x = args.get(0, "a");
    if (InstanceObj* a = arrayOf(x))
      return makeArrayValue(in, *a->attrs.find("shape"),
                            dtypeArg(in, args, 1, dtypeLeaf(in, a->attrs.find("dtype"))), site);
    bool floats = false;
    if (x)
      if (auto dims = nestedShape(in, *x, floats, site))
        return makeArrayValue(in, intsTuple(in, *dims, site),
                              dtypeArg(in, args, 1, floats ? floatDefault(api) : intDefault(api)),
                              site);
    return std::nullopt;
  }
  if (random &&
      (leaf == "normal" || leaf == "uniform" || leaf == "truncated_normal" || leaf == "randint" ||
       leaf == "bernoulli") &&
      module == "jax.random.") {
    // (key, shape, dtype) for normal/uniform; truncated_normal(key, lower,
    // upper, shape, dtype); randint(key, shape, minval, maxval, dtype);
    // bernoulli(key, p, shape).
    size_t shapeAt = leaf == "truncated_normal" ? 3 : leaf == "bernoulli" ? 2 : 1;
    size_t dtypeAt = leaf == "truncated_normal" ? 4 : leaf == "randint" ? 4 : 2;
    std::string d = leaf == "bernoulli"
                        ? std::string("bool_")
                        : dtypeArg(in, args, dtypeAt, leaf == "randint" ? "int32" : "float32");
    return makeArrayValue(in, shapeOf(in, args.get(shapeAt, "shape"), site), d, site);
  }
  if (module == "numpy.random." && (leaf == "randn" || leaf == "rand")) {
    std::vector<Value> dims(args.positional.begin(), args.positional.end());
    return makeArrayValue(in, in.tuple(dims, site), "float64", site);
  }
  if (module == "numpy.random." && leaf == "default_rng")
    return Value(in.heap().make<InstanceObj>(in.externalClass("numpy.random.Generator")), site);
  return std::nullopt;
}

// A default_rng Generator's draws: (…, size=None, dtype=…).
Value nGeneratorDraw(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                     const Object* self) {
  std::string method = leafOf(llvm::cast<BuiltinObj>(self)->name);
  size_t sizeAt = method == "standard_normal" || method == "random"                   ? 1
                  : method == "integers" || method == "normal" || method == "uniform" ? 3
                                                                                      : 1;
  const Value* size = args.get(sizeAt, "size");
  if (!size || (size->single() && size->single()->kind == Kind::None))
    return in.unknown("a random number", site);
  std::string d = method == "integers" ? dtypeArg(in, args, 4, "int64")
                  : method == "standard_normal" || method == "random"
                      ? dtypeArg(in, args, 2, "float64")
                      : std::string("float64");
  return makeArrayValue(in, shapeOf(in, size, site), d, site);
}

// ---- array methods --------------------------------------------------------------------

Value nReshape(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  InstanceObj* a = arrayOf(args.positional.empty() ? nullptr : &args.positional[0]);
  if (!a)
    return in.unknown("a reshaped array", site);
  std::string d = dtypeLeaf(in, a->attrs.find("dtype"));
  Value shape;
  if (args.positional.size() == 2)
    shape = shapeOf(in, &args.positional[1], site);
  else if (args.positional.size() > 2)
    shape = in.tuple({args.positional.begin() + 1, args.positional.end()}, site);
  else if (const Value* s = args.get(SIZE_MAX, "shape"))
    shape = shapeOf(in, s, site);
  else
    return in.unknown("a reshaped array", site);
  // One -1 is what the other dimensions leave of the size.
  auto dims = dimsOf(in, shape, site);
  auto from = dimsOf(in, *a->attrs.find("shape"), site);
  if (dims && from && std::count(dims->begin(), dims->end(), -1) == 1) {
    int64_t total = 1, rest = 1;
    for (int64_t x : *from)
      total *= x;
    for (int64_t x : *dims)
      if (x != -1)
        rest *= x;
    if (rest > 0 && total % rest == 0)
      for (int64_t& x : *dims)
        if (x == -1)
          x = total / rest;
    shape = intsTuple(in, *dims, site);
  }
  return makeArrayValue(in, shape, d, site);
}

Value nAstype(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  InstanceObj* a = arrayOf(args.positional.empty() ? nullptr : &args.positional[0]);
  if (!a)
    return in.unknown("an array", site);
  return makeArrayValue(in, *a->attrs.find("shape"), dtypeLeaf(in, args.get(1, "dtype")), site);
}

Value transposed(Interpreter& in, InstanceObj* a, mlir::Operation* site) {
  Value shape = *a->attrs.find("shape");
  if (auto* t = llvm::dyn_cast_or_null<TupleObj>(shape.single())) {
    std::vector<Value> rev(t->elems.rbegin(), t->elems.rend());
    shape = in.tuple(rev, site);
  }
  return makeArrayValue(in, shape, dtypeLeaf(in, a->attrs.find("dtype")), site);
}

Value nTranspose(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  InstanceObj* a = arrayOf(args.positional.empty() ? nullptr : &args.positional[0]);
  if (!a || args.positional.size() > 1 || args.get(SIZE_MAX, "axes"))
    return in.unknown("a transposed array", site);
  return transposed(in, a, site);
}

// x.T, x.ndim, x.size, x.itemsize, x.nbytes: read from the shape and dtype.
Value nArrayGetattr(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  InstanceObj* a = arrayOf(args.positional.empty() ? nullptr : &args.positional[0]);
  const Value* nameV = args.positional.size() > 1 ? &args.positional[1] : nullptr;
  auto* name = llvm::dyn_cast_or_null<StrObj>(nameV ? nameV->single() : nullptr);
  if (!a || !name)
    return in.unknown("an array's attribute", site);
  std::string leaf = dtypeLeaf(in, a->attrs.find("dtype"));
  auto dims = dimsOf(in, *a->attrs.find("shape"), site);
  int64_t size = 1;
  for (int64_t d : dims.value_or(std::vector<int64_t>{}))
    size *= d;
  int bytes = leaf.empty() ? 0 : std::max(1, shape::dtypeBits(leaf).value_or(0) / 8);
  if (name->v == "T" || name->v == "mT")
    return transposed(in, a, site);
  if (name->v == "ndim")
    if (auto* t = llvm::dyn_cast_or_null<TupleObj>(a->attrs.find("shape")->single()))
      return in.integer(static_cast<int64_t>(t->elems.size()), site);
  if (name->v == "size" && dims)
    return in.integer(size, site);
  if (name->v == "itemsize" && bytes)
    return in.integer(bytes, site);
  if (name->v == "nbytes" && dims && bytes)
    return in.integer(size * bytes, site);
  return in.unknown("the array's ." + name->v, site);
}

// Elementwise arithmetic: the broadcast shape; the array's dtype (a Python
// scalar is weakly typed), a float scalar on an integer array gives floats.
Value nArrayArith(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (args.positional.size() != 2)
    return in.unknown("an array", site);
  InstanceObj* a = arrayOf(&args.positional[0]);
  InstanceObj* b = arrayOf(&args.positional[1]);
  if (!a)
    return in.unknown("an array", site);
  std::string leaf = dtypeLeaf(in, a->attrs.find("dtype"));
  Value shape = *a->attrs.find("shape");
  if (b) {
    auto x = dimsOf(in, shape, site), y = dimsOf(in, *b->attrs.find("shape"), site);
    if (!x || !y)
      return makeArrayValue(in, in.unknown("a broadcast shape", site),
                            leaf == dtypeLeaf(in, b->attrs.find("dtype")) ? leaf : "", site);
    std::vector<int64_t> out(std::max(x->size(), y->size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t p = i < x->size() ? (*x)[x->size() - 1 - i] : 1;
      int64_t q = i < y->size() ? (*y)[y->size() - 1 - i] : 1;
      if (p != q && p != 1 && q != 1)
        return in.unknown("arrays whose shapes do not broadcast", site);
      out[out.size() - 1 - i] = p == 1 ? q : p;
    }
    if (leaf != dtypeLeaf(in, b->attrs.find("dtype")))
      leaf.clear(); // promotion: not modelled
    return makeArrayValue(in, intsTuple(in, out, site), leaf, site);
  }
  Object* s = args.positional[1].single();
  if (!s || (s->kind != Kind::Int && s->kind != Kind::Float && s->kind != Kind::Bool))
    return in.unknown("an array", site);
  llvm::StringRef l(leaf);
  if (s->kind == Kind::Float && (l.starts_with("int") || l.starts_with("uint") || l == "bool_"))
    leaf = "float32";
  return makeArrayValue(in, shape, leaf, site);
}

} // namespace

// ---- hooks ------------------------------------------------------------------------------

// Library attributes: dtypes by any spelling, and a dtype's attributes.
Value arraysExternalAttr(Interpreter& in, Object* owner, const std::string& qualname,
                         mlir::Operation* site) {
  if (auto* e = llvm::dyn_cast_or_null<ExternalObj>(owner))
    if (llvm::StringRef(e->identity).starts_with("dtype:")) {
      std::string name = leafOf(qualname);
      return dtypeAttr(in, e->identity.substr(6), name, site);
    }
  std::string leaf = shape::detail::dtypeOfName(in.canonical(qualname));
  if (!leaf.empty())
    return dtypeValue(in, leaf, site, qualname);
  return Value();
}

std::optional<Value> arrayApiCall(Interpreter& in, const std::string& api, const CallArgs& args,
                                  mlir::Operation* site) {
  if (api == "jnp.dtype" || api == "numpy.dtype") {
    std::string leaf = dtypeLeaf(in, args.get(0, "dtype"));
    if (leaf.empty())
      return in.unknown("a dtype", site);
    return dtypeValue(in, leaf, site);
  }
  // Pallas's pure helpers that size kernels, as their source computes them
  // for ints (JAX 0.10.2 and 0.11.2): pl.cdiv(a, b) is (a + b - 1) // b
  // (pallas/utils.py); plgpu.find_swizzle(bits) the largest of 128, 64, 32
  // and 16 bytes that divides bits / 8, else ValueError
  // (mosaic_gpu/helpers.py).
  if (api == "pl.cdiv") {
    std::optional<int64_t> a = intOf(args.get(0, "a")), b = intOf(args.get(1, "b"));
    if (!a || !b || *b == 0)
      return in.unknown("pl.cdiv()", site);
    int64_t n = *a + *b - 1, q = n / *b;
    if ((n % *b != 0) && ((n < 0) != (*b < 0)))
      --q; // Python's // rounds toward negative infinity
    return in.integer(q, site);
  }
  if (api == "plgpu.find_swizzle") {
    std::optional<int64_t> bits = intOf(args.get(0, "minor_dim_bits"));
    if (!bits)
      return in.unknown("plgpu.find_swizzle()", site);
    for (int64_t swizzle : {128, 64, 32, 16})
      if (*bits % (swizzle * 8) == 0)
        return in.integer(swizzle, site);
    return in.unknown("plgpu.find_swizzle() of a minor dimension that is no multiple of 16 bytes",
                      site);
  }
  return creator(in, api, args, site);
}

Value tracedArgument(Interpreter& in, const Value& v, mlir::Operation* site, unsigned depth) {
  Object* o = v.single();
  if (auto* t = llvm::dyn_cast_or_null<TupleObj>(o); t && depth < 4) {
    std::vector<Value> items;
    items.reserve(t->elems.size());
    for (const Value& e : t->elems)
      items.push_back(tracedArgument(in, e, site, depth + 1));
    return in.tuple(items, site);
  }
  auto* sds = llvm::dyn_cast_or_null<InstanceObj>(o);
  if (!sds || in.canonical(sds->cls->external) != "jax.ShapeDtypeStruct")
    return v;
  auto* array = in.heap().make<InstanceObj>(arrayClass(in));
  for (const char* field : {"shape", "dtype"})
    if (const Value* f = sds->attrs.find(field))
      array->attrs.set(field, *f);
  return Value(array, site);
}

void installArrayNatives(Interpreter& in) {
  ClassObj* array = arrayClass(in);
  auto method = [&](ClassObj* cls, const std::string& name, NativeFn fn) {
    cls->ns.set(name, Value(in.makeNative(cls->external + "." + name, fn)));
  };
  method(array, "reshape", nReshape);
  method(array, "astype", nAstype);
  method(array, "transpose", nTranspose);
  method(array, "__getattr__", nArrayGetattr);
  for (const char* op : {"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                         "__truediv__", "__rtruediv__", "__pow__", "__mod__", "__floordiv__"})
    method(array, op, nArrayArith);
  ClassObj* generator = in.externalClass("numpy.random.Generator");
  for (const char* draw : {"standard_normal", "normal", "uniform", "random", "integers"})
    method(generator, draw, nGeneratorDraw);
  in.setExternalAttrHook(arraysExternalAttr);
  (void)stateOf;
}

} // namespace pallas::analysis::passes
