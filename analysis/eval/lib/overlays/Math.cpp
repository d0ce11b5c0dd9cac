// Overlay: math. Kernel configurations size tiles and pipeline depths with
// it (`math.prod(block_shape) * itemsize`, `math.ceil(n / block)`,
// `math.gcd(...)`, `int(math.log2(swizzle))`): each function is computed as
// CPython computes it for ints and floats, and anything else (an unknown
// argument, an overflow, a domain error) is unknown, never a guess. The
// constants are CPython's.
#include "Util.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace pallas::eval {
namespace {

using namespace overlay;

std::optional<double> numberOf(const Value* v) {
  if (auto i = intOf(v))
    return static_cast<double>(*i);
  if (auto* f = v ? llvm::dyn_cast_or_null<FloatObj>(v->single()) : nullptr)
    return f->v;
  return std::nullopt;
}

Value floating(Interpreter& in, double d, mlir::Operation* site) {
  return Value(in.heap().floating(d), site);
}

// An int result of a float function (ceil, floor, trunc), when it fits.
Value integral(Interpreter& in, double d, const char* what, mlir::Operation* site) {
  if (!std::isfinite(d) || std::fabs(d) >= 9.2e18)
    return in.unknown(what, site);
  return in.integer(static_cast<int64_t>(d), site);
}

// math.prod(iterable, *, start=1): the product as `*` computes it, so ints,
// floats and unknown factors multiply as they would in the program.
Value prod(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* it = arg(a, 0, "iterable");
  if (!it)
    return in.unknown("math.prod()", site);
  Interpreter::Elements e = in.elements(*it, site);
  if (!e.exact)
    return in.unknown("math.prod() of an iterable of unknown length", site);
  Value out = arg(a, SIZE_MAX, "start") ? *arg(a, SIZE_MAX, "start") : in.integer(1, site);
  for (const Value& x : e.items)
    out = in.binary("*", out, x, site);
  return out;
}

template <double (*F)(double)>
Value rounding(Interpreter& in, const CallArgs& a, mlir::Operation* site, const char* what) {
  const Value* v = arg(a, 0, "x");
  if (auto i = intOf(v))
    return in.integer(*i, site); // an int rounds to itself
  if (auto d = numberOf(v))
    return integral(in, F(*d), what, site);
  return in.unknown(what, site);
}

Value ceil(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return rounding<std::ceil>(in, a, site, "math.ceil()");
}
Value floor(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return rounding<std::floor>(in, a, site, "math.floor()");
}
Value trunc(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return rounding<std::trunc>(in, a, site, "math.trunc()");
}

// gcd(*integers) and lcm(*integers): 0 and 1 for no arguments, as CPython.
Value gcdOrLcm(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool lcm) {
  const char* what = lcm ? "math.lcm()" : "math.gcd()";
  if (a.morePositional)
    return in.unknown(what, site);
  int64_t out = lcm ? 1 : 0;
  for (const Value& v : a.positional) {
    std::optional<int64_t> n = intOf(&v);
    if (!n || *n == std::numeric_limits<int64_t>::min())
      return in.unknown(what, site);
    int64_t m = *n < 0 ? -*n : *n;
    if (!lcm) {
      out = std::gcd(out, m);
      continue;
    }
    if (m == 0 || out == 0) {
      out = 0;
      continue;
    }
    int64_t g = std::gcd(out, m);
    if (__builtin_mul_overflow(out / g, m, &out))
      return in.unknown(what, site);
  }
  return in.integer(out, site);
}
Value gcd(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return gcdOrLcm(in, a, site, false);
}
Value lcm(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return gcdOrLcm(in, a, site, true);
}

// A float function of one number; nullopt from `f` is a ValueError in
// CPython (a domain error): unknown here.
template <typename F>
Value unary(Interpreter& in, const CallArgs& a, mlir::Operation* site, const char* what, F f) {
  std::optional<double> x = numberOf(arg(a, 0));
  std::optional<double> r = x ? f(*x) : std::nullopt;
  return r && std::isfinite(*r) ? floating(in, *r, site) : in.unknown(what, site);
}

Value log2(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return unary(in, a, site, "math.log2()",
               [](double x) { return x > 0 ? std::optional(std::log2(x)) : std::nullopt; });
}
Value log(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<double> base = arg(a, 1, "base") ? numberOf(arg(a, 1, "base")) : std::exp(1.0);
  if (!base || *base <= 0 || *base == 1)
    return in.unknown("math.log()", site);
  return unary(in, a, site, "math.log()", [&](double x) {
    return x > 0 ? std::optional(std::log(x) / std::log(*base)) : std::nullopt;
  });
}
Value log10(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return unary(in, a, site, "math.log10()",
               [](double x) { return x > 0 ? std::optional(std::log10(x)) : std::nullopt; });
}
Value sqrt(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return unary(in, a, site, "math.sqrt()",
               [](double x) { return x >= 0 ? std::optional(std::sqrt(x)) : std::nullopt; });
}
Value exp(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return unary(in, a, site, "math.exp()", [](double x) { return std::optional(std::exp(x)); });
}
Value fabs(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return unary(in, a, site, "math.fabs()", [](double x) { return std::optional(std::fabs(x)); });
}

// isqrt(n): the exact integer square root (no float rounding).
Value isqrt(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<int64_t> n = intOf(arg(a, 0));
  if (!n || *n < 0)
    return in.unknown("math.isqrt()", site);
  int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(*n)));
  while (r > 0 && r > *n / r)
    --r;
  while ((r + 1) <= *n / (r + 1))
    ++r;
  return in.integer(r, site);
}

Value factorial(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<int64_t> n = intOf(arg(a, 0));
  if (!n || *n < 0 || *n > 20) // 21! does not fit in 64 bits
    return in.unknown("math.factorial()", site);
  int64_t out = 1;
  for (int64_t k = 2; k <= *n; ++k)
    out *= k;
  return in.integer(out, site);
}

Value comb(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<int64_t> n = intOf(arg(a, 0)), k = intOf(arg(a, 1));
  if (!n || !k || *n < 0 || *k < 0)
    return in.unknown("math.comb()", site);
  if (*k > *n)
    return in.integer(0, site);
  int64_t kk = std::min(*k, *n - *k), out = 1;
  for (int64_t i = 1; i <= kk; ++i) {
    // out * (n - kk + i) / i stays an integer at each step.
    if (__builtin_mul_overflow(out, *n - kk + i, &out))
      return in.unknown("math.comb()", site);
    out /= i;
  }
  return in.integer(out, site);
}

Value pow(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<double> x = numberOf(arg(a, 0)), y = numberOf(arg(a, 1));
  if (!x || !y)
    return in.unknown("math.pow()", site);
  double r = std::pow(*x, *y);
  return std::isfinite(r) ? floating(in, r, site) : in.unknown("math.pow()", site);
}

Value isfinite(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<double> x = numberOf(arg(a, 0));
  return x ? in.boolean(std::isfinite(*x), site) : in.unknown("math.isfinite()", site);
}

class MathOverlay final : public Overlay {
public:
  const char* name() const override { return "math"; }
  void install(Interpreter& in) override {
    struct Fn {
      const char* name;
      NativeFn fn;
    };
    static const Fn fns[] = {{"prod", prod},        {"ceil", ceil},
                             {"floor", floor},      {"trunc", trunc},
                             {"gcd", gcd},          {"lcm", lcm},
                             {"log2", log2},        {"log", log},
                             {"log10", log10},      {"sqrt", sqrt},
                             {"exp", exp},          {"fabs", fabs},
                             {"isqrt", isqrt},      {"factorial", factorial},
                             {"comb", comb},        {"pow", pow},
                             {"isfinite", isfinite}};
    for (const Fn& f : fns)
      in.defineNative(std::string("math.") + f.name, f.fn);
    for (auto [name, v] : {std::pair{"pi", M_PI},
                           {"e", M_E},
                           {"tau", 2 * M_PI},
                           {"inf", std::numeric_limits<double>::infinity()},
                           {"nan", std::numeric_limits<double>::quiet_NaN()}})
      moduleAttr(in, "math", name, Value(in.heap().floating(v)));
  }
};

} // namespace

std::unique_ptr<Overlay> makeMathOverlay() {
  return std::make_unique<MathOverlay>();
}

} // namespace pallas::eval
