// A structure-aware generator of Python for the fuzzers: the fuzzer's bytes
// are a program of choices (FuzzedDataProvider) that builds a Pallas file
// with the shapes that broke the analysis (issue 14): deep nesting of every
// kind, long attribute and call chains, long expressions, wide literals,
// chained assignments, elif chains, unclosed brackets, and mixed line ends
// ("\n", "\r\n", a lone "\r") — around real Pallas constructs (a
// pallas_call with interpret=True, an inline_mgpu region, plgpu calls) so
// that lowering, the passes and the fixes all run on them.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>
#include <string>

namespace pallas::fuzz {

class PythonGenerator {
public:
  explicit PythonGenerator(FuzzedDataProvider& in) : in_(in) {}

  std::string file() {
    std::string out;
    line(out, 0, "import jax");
    line(out, 0, "import jax.numpy as jnp");
    line(out, 0, "from jax.experimental import pallas as pl");
    line(out, 0, "from jax.experimental.pallas import mosaic_gpu as plgpu");
    line(out, 0, "import jax.experimental.mosaic.gpu as mgpu");
    while (in_.remaining_bytes() > 0 && out.size() < kMaxBytes) {
      switch (in_.ConsumeIntegralInRange(0, 5)) {
      case 0:
        kernel(out);
        break;
      case 1:
        line(out, 0, "x = " + expr(0));
        break;
      case 2:
        function(out);
        break;
      case 3:
        line(out, 0, "def run(x):");
        line(out, 1,
             "return pl.pallas_call(kernel, out_shape=x, interpret=" + interpret() + ")(x)");
        break;
      case 4:
        blocks(out, 0);
        break;
      default:
        raw(out);
        break;
      }
    }
    return out;
  }

private:
  static constexpr size_t kMaxBytes = 128 * 1024; // keeps one input under a second or so

  std::string lineEnd() {
    switch (in_.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return "\r\n";
    case 1:
      return "\r";
    default:
      return "\n";
    }
  }

  void line(std::string& out, int indent, const std::string& text) {
    out.append(static_cast<size_t>(indent) * 2, ' ');
    out += text;
    out += lineEnd();
  }

  size_t count(size_t small, size_t large) {
    // Mostly small; one time in eight very large (the adversarial sizes:
    // large inputs are slow, and most bugs need only small ones).
    return in_.ConsumeIntegralInRange(0, 7) != 0 ? in_.ConsumeIntegralInRange<size_t>(0, small)
                                                 : in_.ConsumeIntegralInRange<size_t>(0, large);
  }

  std::string name() {
    static const char* names[] = {"x",     "y",  "x_ref", "o_ref", "ref", "ctx",
                                  "plgpu", "pl", "jnp",   "mgpu",  "a",   "b"};
    return names[in_.ConsumeIntegralInRange<size_t>(0, std::size(names) - 1)];
  }

  std::string interpret() {
    static const char* values[] = {"True", "False", "plgpu.InterpretGPUParams()", "x", "None"};
    return values[in_.ConsumeIntegralInRange<size_t>(0, std::size(values) - 1)];
  }

  std::string repeat(const std::string& s, size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n && out.size() < kMaxBytes; ++i)
      out += s;
    return out;
  }

  std::string expr(int depth) {
    if (depth > 6 || in_.remaining_bytes() == 0)
      return name();
    switch (in_.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return name() + repeat("." + name(), count(4, 40000)); // attribute chain
    case 1: {                                                // long expression
      std::string op =
          in_.PickValueInArray({" + ", " * ", " - ", " ** ", " and ", " if x else ", ", "});
      std::string out = expr(depth + 1);
      for (size_t i = 0, n = count(8, 5000); i < n && out.size() < kMaxBytes; ++i)
        out += op + name();
      return out;
    }
    case 2: { // deep brackets
      size_t n = count(10, 100000);
      std::string open = in_.PickValueInArray({"(", "[", "{", "f("});
      std::string close = open == "[" ? "]" : open == "{" ? "}" : ")";
      bool closed = in_.ConsumeIntegralInRange(0, 9) != 0; // sometimes unclosed
      return repeat(open, n) + expr(depth + 1) + (closed ? repeat(close, n) : "");
    }
    case 3:
      return name() + repeat(in_.PickValueInArray({"()", "[0]", ".astype(jnp.float32)", "[...]"}),
                             count(4, 20000));
    case 4:
      return repeat(in_.PickValueInArray({"-", "not ", "~", "await ", "lambda: ", "*"}),
                    count(4, 80000)) +
             name();
    case 5: { // wide literal
      std::string out = "[";
      for (size_t i = 0, n = count(8, 60000); i < n && out.size() < kMaxBytes; ++i)
        out += "1, ";
      return out + "]";
    }
    case 6:
      return "plgpu." +
             std::string(in_.PickValueInArray(
                 {"copy_gmem_to_smem", "wgmma", "barrier_wait", "commit_smem", "inline_mgpu"})) +
             "(" + expr(depth + 1) + ", " + expr(depth + 1) + ")";
    case 7:
      return "mgpu.FragmentedArray.load_strided(" + name() + ", vec_size=2)";
    case 8:
      return name() + "[" + expr(depth + 1) + "]";
    case 9:
      return "'" + in_.ConsumeRandomLengthString(40) + "'";
    case 10:
      return std::to_string(in_.ConsumeIntegral<int>());
    case 11:
      return "pl.pallas_call(kernel, out_shape=x, interpret=" + interpret() + ")";
    case 12:
      return "(" + expr(depth + 1) + " if " + expr(depth + 1) + " else " + expr(depth + 1) + ")";
    case 13:
      return "lambda " + name() + ": " + expr(depth + 1);
    case 14:
      return in_.ConsumeRandomLengthString(30); // raw junk
    default:
      return expr(depth + 1) + " " + in_.PickValueInArray({"+", "<", "==", "@", "//"}) + " " +
             expr(depth + 1);
    }
  }

  void statement(std::string& out, int indent) {
    switch (in_.ConsumeIntegralInRange(0, 7)) {
    case 0:
      line(out, indent, name() + " = " + expr(0));
      break;
    case 1:
      line(out, indent, repeat(name() + " = ", count(3, 60000)) + expr(0));
      break;  // chained
    case 2: { // nested targets
      size_t n = count(3, 40000);
      line(out, indent, repeat("(", n) + "a" + repeat(")", n) + ", b = x");
      break;
    }
    case 3:
      line(out, indent, "o_ref[...] = " + expr(0));
      break;
    case 4:
      line(out, indent, "return " + expr(0));
      break;
    case 5: { // elif chain
      line(out, indent, "if " + expr(0) + ":");
      line(out, indent + 1, "pass");
      for (size_t i = 0, n = count(3, 60000); i < n && out.size() < kMaxBytes; ++i) {
        line(out, indent, "elif x:");
        line(out, indent + 1, "pass");
      }
      break;
    }
    case 6:
      line(out, indent,
           "[" + repeat("[", count(3, 30000)) + "a" + repeat("]", count(3, 30000)) + "] = x");
      break;
    default:
      line(out, indent, expr(0));
      break;
    }
  }

  void body(std::string& out, int indent) {
    size_t n = in_.ConsumeIntegralInRange<size_t>(1, 6);
    for (size_t i = 0; i < n && out.size() < kMaxBytes; ++i)
      statement(out, indent);
  }

  void kernel(std::string& out) {
    line(out, 0, "def kernel(x_ref, o_ref):");
    line(out, 1,
         "@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),), "
         "return_type=plgpu.ShapeDtypeStruct((256,), jnp.float32, "
         "layout=plgpu.Layout.WG_STRIDED((256,), vec_size=2)))");
    line(out, 1, "def region(ctx, ref):");
    line(out, 2, "x = mgpu.FragmentedArray.load_strided(ref, vec_size=2)");
    body(out, 2);
    line(out, 2, "return x");
    line(out, 1, "o_ref[...] = region(x_ref)");
    if (in_.ConsumeBool())
      body(out, 1);
  }

  void function(std::string& out) {
    line(out, 0,
         "def f" + std::to_string(in_.ConsumeIntegralInRange(0, 9)) + "(x, y=" + interpret() +
             "):");
    body(out, 1);
  }

  void blocks(std::string& out, int indent) {
    // Nested blocks, sometimes header lines without bodies.
    size_t n = count(4, 90);
    for (size_t i = 0; i < n; ++i)
      line(out, indent + static_cast<int>(i),
           std::string(in_.PickValueInArray(
               {"if x:", "with pl.core_map(x):", "for i in x:", "try:", "while x:"})));
    line(out, indent + static_cast<int>(n), "pass");
    for (size_t i = 0, headers = count(0, 70000); i < headers && out.size() < kMaxBytes; ++i)
      line(out, 0, "if x:");
  }

  void raw(std::string& out) { out += in_.ConsumeRandomLengthString(200); }

  FuzzedDataProvider& in_;
};

} // namespace pallas::fuzz
