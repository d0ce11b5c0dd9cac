// Overlay: json. json.loads of a string the program spells out is parsed
// (objects, arrays, numbers, strings, true/false/null) into the dicts,
// lists and constants CPython builds; text that is not JSON raises
// json.JSONDecodeError (a ValueError). What a file holds (json.load) and
// the text json.dumps writes are Unknown.
#include "Util.h"

#include <cmath>
#include <cstdlib>

namespace pallas::eval {
namespace {

using namespace overlay;

class Parser {
public:
  Parser(Interpreter& in, const std::string& text, mlir::Operation* site)
      : in_(in), s_(text), site_(site) {}

  // The value, or nullopt when the text is not JSON.
  std::optional<Value> parse() {
    skipSpace();
    std::optional<Value> v = value(0);
    skipSpace();
    if (!v || pos_ != s_.size())
      return std::nullopt;
    return v;
  }

private:
  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool literal(const char* word) {
    size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0)
      return false;
    pos_ += n;
    return true;
  }

  std::optional<Value> value(int depth) {
    if (depth > 200 || pos_ >= s_.size())
      return std::nullopt;
    char c = s_[pos_];
    if (c == '{')
      return object(depth);
    if (c == '[')
      return array(depth);
    if (c == '"') {
      std::optional<std::string> str = string();
      if (!str)
        return std::nullopt;
      return in_.str(*str, site_);
    }
    if (literal("true"))
      return in_.boolean(true, site_);
    if (literal("false"))
      return in_.boolean(false, site_);
    if (literal("null"))
      return in_.none(site_);
    if (literal("NaN"))
      return Value(in_.heap().floating(std::nan("")), site_);
    if (literal("Infinity"))
      return Value(in_.heap().floating(INFINITY), site_);
    if (literal("-Infinity"))
      return Value(in_.heap().floating(-INFINITY), site_);
    if (c == '-' || (c >= '0' && c <= '9'))
      return number();
    return std::nullopt;
  }

  std::optional<Value> number() {
    size_t start = pos_;
    if (s_[pos_] == '-')
      ++pos_;
    if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_])))
      return std::nullopt;
    if (s_[pos_] == '0')
      ++pos_;
    else
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
    bool isFloat = false;
    if (pos_ + 1 < s_.size() && s_[pos_] == '.' &&
        std::isdigit(static_cast<unsigned char>(s_[pos_ + 1]))) {
      isFloat = true;
      ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'))
        ++pos_;
      if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        isFloat = true;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
          ++pos_;
      } else {
        pos_ = save; // "1e": the number ends before the e (and the text is then not JSON)
      }
    }
    std::string text = s_.substr(start, pos_ - start);
    if (isFloat)
      return Value(in_.heap().floating(std::strtod(text.c_str(), nullptr)), site_);
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE)
      return in_.unknown("an integer too large for the evaluator (" + text + ")", site_);
    return in_.integer(v, site_);
  }

  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::optional<uint32_t> hex4() {
    if (pos_ + 4 > s_.size())
      return std::nullopt;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return std::nullopt;
    }
    return v;
  }

  std::optional<std::string> string() {
    ++pos_; // "
    std::string out;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        return std::nullopt; // control characters are not allowed (strict)
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size())
        return std::nullopt;
      char e = s_[pos_++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::optional<uint32_t> cp = hex4();
        if (!cp)
          return std::nullopt;
        if (*cp >= 0xD800 && *cp < 0xDC00 && pos_ + 6 <= s_.size() && s_[pos_] == '\\' &&
            s_[pos_ + 1] == 'u') {
          size_t save = pos_;
          pos_ += 2;
          std::optional<uint32_t> lo = hex4();
          if (lo && *lo >= 0xDC00 && *lo < 0xE000)
            cp = 0x10000 + ((*cp - 0xD800) << 10) + (*lo - 0xDC00);
          else
            pos_ = save;
        }
        utf8(out, *cp);
        break;
      }
      default:
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  std::optional<Value> array(int depth) {
    ++pos_; // [
    std::vector<Value> items;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return in_.list({}, site_);
    }
    for (;;) {
      skipSpace();
      std::optional<Value> v = value(depth + 1);
      if (!v)
        return std::nullopt;
      items.push_back(*v);
      skipSpace();
      if (pos_ >= s_.size())
        return std::nullopt;
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return in_.list(std::move(items), site_);
      }
      return std::nullopt;
    }
  }

  std::optional<Value> object(int depth) {
    ++pos_; // {
    auto* d = in_.heap().make<DictObj>();
    Value self(d, site_);
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return self;
    }
    for (;;) {
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"')
        return std::nullopt;
      std::optional<std::string> key = string();
      if (!key)
        return std::nullopt;
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':')
        return std::nullopt;
      ++pos_;
      skipSpace();
      std::optional<Value> v = value(depth + 1);
      if (!v)
        return std::nullopt;
      in_.setItem(self, in_.str(*key, site_), *v, site_); // a repeated key: the last wins
      skipSpace();
      if (pos_ >= s_.size())
        return std::nullopt;
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return self;
      }
      return std::nullopt;
    }
  }

  Interpreter& in_;
  const std::string& s_;
  mlir::Operation* site_;
  size_t pos_ = 0;
};

Value loads(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* s = arg(a, 0, "s");
  if (!s)
    return in.unknown("json.loads()", site);
  // Hooks (object_hook, parse_float, cls, ...) change what is built.
  for (const auto& [k, v] : a.keywords)
    if (!isNone(&v))
      return in.unknown("json.loads() with " + k + "=", site);
  Value out;
  bool invalid = false;
  for (const Alt& alt : *s) {
    auto* text = llvm::dyn_cast<StrObj>(alt.obj);
    if (!text) {
      out = in.heap().join(out, in.unknown("json.loads() of " + describe(alt.obj), site));
      continue;
    }
    std::optional<Value> v = Parser(in, text->v, site).parse();
    if (v)
      out = in.heap().join(out, *v);
    else
      invalid = true;
  }
  if (invalid) {
    if (out.isBottom())
      return raiseNew(in, in.externalClass("json.JSONDecodeError"), site, "not JSON");
    out = in.heap().join(out, in.unknown("json.loads() of a text that is not JSON", site));
  }
  return out;
}

Value dumps(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0, "obj");
  return in.unknown("the JSON text of " + (v ? describe(*v) : std::string("a value")), site);
}

Value load(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.unknown("the JSON content of a file (json.load())", site);
}

Value none(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.none(site);
}

class JsonOverlay final : public Overlay {
public:
  const char* name() const override { return "json"; }
  void install(Interpreter& in) override {
    in.defineNative("json.loads", loads);
    in.defineNative("json.dumps", dumps);
    in.defineNative("json.load", load);
    in.defineNative("json.dump", none);
    ClassObj* error =
        libraryClass(in, "json.JSONDecodeError", {in.externalClass("builtins.ValueError")});
    in.externalModule("json")->ns.set("JSONDecodeError", Value(error));
  }
};

} // namespace

std::unique_ptr<Overlay> makeJsonOverlay() {
  return std::make_unique<JsonOverlay>();
}

} // namespace pallas::eval
