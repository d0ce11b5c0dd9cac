// Source text of annotations for the overlays (Util.h).
#include "Util.h"

#include "mlir/IR/BuiltinOps.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace pallas::eval::overlay {

namespace {

struct CachedFile {
  std::filesystem::file_time_type mtime;
  std::shared_ptr<const std::vector<std::string>> lines;
};

// The lines of a file, read again when it changes. Evaluations may run on
// several threads: the cache is shared under a lock.
std::shared_ptr<const std::vector<std::string>> linesOf(const std::string& path) {
  static std::mutex lock;
  static std::map<std::string, CachedFile> cache;
  std::lock_guard<std::mutex> guard(lock);
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec)
    return nullptr;
  auto it = cache.find(path);
  if (it != cache.end() && it->second.mtime == mtime)
    return it->second.lines;
  std::ifstream f(path);
  if (!f)
    return nullptr;
  auto lines = std::make_shared<std::vector<std::string>>();
  std::string line;
  while (std::getline(f, line))
    lines->push_back(line);
  CachedFile c{mtime, lines};
  return (cache[path] = std::move(c)).lines;
}

} // namespace

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

namespace {

// The digits of `text` without the single underscores CPython allows
// between digits (`1_000`); nullopt for a leading, trailing or doubled `_`
// or a character `isDigit` rejects.
template <typename IsDigit>
std::optional<std::string> digitsOf(std::string_view text, IsDigit isDigit, bool underscoreFirst) {
  std::string out;
  bool lastWasDigit = underscoreFirst;
  for (char c : text) {
    if (c == '_') {
      if (!lastWasDigit)
        return std::nullopt;
      lastWasDigit = false;
      continue;
    }
    if (!isDigit(c))
      return std::nullopt;
    out += c;
    lastWasDigit = true;
  }
  if (out.empty() || !lastWasDigit)
    return std::nullopt;
  return out;
}

} // namespace

std::optional<int64_t> pythonInt(const std::string& text, int base) {
  std::string t = trim(text);
  if (base != 0 && (base < 2 || base > 36))
    return std::nullopt;
  std::string_view v(t);
  bool negative = false;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    negative = v[0] == '-';
    v.remove_prefix(1);
  }
  // A prefix (0x, 0o, 0b) where the base is 0 or matches it; `_` may follow it.
  bool prefixed = false;
  if (v.size() >= 2 && v[0] == '0') {
    char p = static_cast<char>(std::tolower(static_cast<unsigned char>(v[1])));
    int prefixBase = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (prefixBase && (base == 0 || base == prefixBase)) {
      base = prefixBase;
      v.remove_prefix(2);
      prefixed = true;
    }
  }
  int radix = base == 0 ? 10 : base;
  auto isDigit = [radix](char c) {
    int d = std::isdigit(static_cast<unsigned char>(c))   ? c - '0'
            : std::isalpha(static_cast<unsigned char>(c)) ? std::tolower(c) - 'a' + 10
                                                          : 99;
    return d < radix;
  };
  std::optional<std::string> digits = digitsOf(v, isDigit, prefixed);
  if (!digits)
    return std::nullopt;
  // Base 0 reads a decimal as Python source does: no leading zeros but 0.
  if (base == 0 && digits->size() > 1 && (*digits)[0] == '0' &&
      digits->find_first_not_of('0') != std::string::npos)
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(digits->c_str(), &end, radix);
  if (errno == ERANGE || !end || *end)
    return std::nullopt;
  return negative ? -n : n;
}

std::optional<double> pythonFloat(const std::string& text) {
  std::string t = trim(text);
  std::string_view v(t);
  bool negative = false;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    negative = v[0] == '-';
    v.remove_prefix(1);
  }
  std::string word;
  for (char c : v)
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (word == "inf" || word == "infinity")
    return negative ? -HUGE_VAL : HUGE_VAL;
  if (word == "nan")
    return std::nan("");
  auto isDigit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  // mantissa [e exponent]; the mantissa is digits, digits., .digits or digits.digits
  size_t e = word.find('e');
  std::string_view mantissa = std::string_view(word).substr(0, e);
  std::string number;
  size_t dot = mantissa.find('.');
  std::string_view whole = mantissa.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : mantissa.substr(dot + 1);
  if (whole.empty() && fraction.empty())
    return std::nullopt;
  if (!whole.empty()) {
    std::optional<std::string> d = digitsOf(whole, isDigit, false);
    if (!d)
      return std::nullopt;
    number += *d;
  }
  number += '.';
  if (!fraction.empty()) {
    std::optional<std::string> d = digitsOf(fraction, isDigit, false);
    if (!d)
      return std::nullopt;
    number += *d;
  }
  if (e != std::string::npos) {
    std::string_view exponent = std::string_view(word).substr(e + 1);
    number += 'e';
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
      number += exponent[0];
      exponent.remove_prefix(1);
    }
    std::optional<std::string> d = digitsOf(exponent, isDigit, false);
    if (!d)
      return std::nullopt;
    number += *d;
  }
  double out = std::strtod(number.c_str(), nullptr);
  return negative ? -out : out;
}

std::string sourceText(mlir::Operation* op) {
  if (!op)
    return {};
  auto loc = llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc());
  if (!loc)
    return {};
  std::shared_ptr<const std::vector<std::string>> lines = linesOf(loc.getFilename().str());
  if (!lines)
    return {};
  unsigned l0 = loc.getStartLine(), l1 = loc.getEndLine();
  // Columns are 1-based (the lowering's locations), the end one past the last.
  unsigned c0 = loc.getStartColumn(), c1 = loc.getEndColumn();
  if (l0 == 0 || l1 < l0 || l1 > lines->size() || c0 == 0 || c1 == 0)
    return {};
  std::string out;
  for (unsigned l = l0; l <= l1; ++l) {
    const std::string& text = (*lines)[l - 1];
    size_t from = l == l0 ? std::min<size_t>(c0 - 1, text.size()) : 0;
    size_t to = l == l1 ? std::min<size_t>(c1 - 1, text.size()) : text.size();
    if (to > from)
      out += text.substr(from, to - from);
    if (l != l1)
      out += "\n";
  }
  return out;
}

std::string annotationText(const Value& annotation) {
  Object* o = annotation.single();
  if (!o)
    return {};
  if (auto* e = llvm::dyn_cast<ExternalObj>(o))
    return e->qualname;
  if (auto* c = llvm::dyn_cast<ClassObj>(o))
    return c->external.empty() ? c->name : c->external;
  if (auto* s = llvm::dyn_cast<StrObj>(o)) // a string annotation
    return s->v;
  if (auto* u = llvm::dyn_cast<UnknownObj>(o))
    if (u->at && llvm::isa<py::ErrorOp>(u->at))
      return trim(sourceText(u->at));
  return {};
}

std::string parameterAnnotation(FunctionObj* fn, size_t index) {
  if (!fn || !fn->def)
    return {};
  std::string text = sourceText(fn->def);
  size_t def = text.find("def ");
  if (def == std::string::npos)
    return {};
  size_t open = text.find('(', def);
  if (open == std::string::npos)
    return {};
  // Split the parameter list at top-level commas.
  std::vector<std::string> params;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (size_t i = open + 1; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      cur += c;
      if (c == '\\' && i + 1 < text.size())
        cur += text[++i];
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      cur += c;
      continue;
    }
    if (c == '#') { // a comment inside the parameter list
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        params.push_back(cur);
        break;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      params.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  std::vector<std::string> named;
  for (std::string& p : params) {
    std::string t = trim(p);
    if (t.empty() || t == "/" || t == "*")
      continue;
    named.push_back(t);
  }
  if (index >= named.size())
    return {};
  const std::string& p = named[index];
  // name: annotation = default (the first top-level ':' and '=').
  size_t colon = std::string::npos, eq = std::string::npos;
  depth = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (depth == 0 && c == ':' && colon == std::string::npos)
      colon = i;
    else if (depth == 0 && c == '=' && eq == std::string::npos && colon != std::string::npos)
      eq = i;
  }
  if (colon == std::string::npos)
    return {};
  return trim(p.substr(colon + 1, eq == std::string::npos ? std::string::npos : eq - colon - 1));
}

Value resolveName(Interpreter& in, FunctionObj* fn, ModuleObj* module, const std::string& dotted,
                  mlir::Operation* site) {
  std::string text = dotted;
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\''))
    text = text.substr(1, text.size() - 2); // a string annotation
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, '.'))
    parts.push_back(trim(part));
  if (parts.empty() || parts[0].empty())
    return in.unknown("an annotation not known", site);
  for (const std::string& p : parts)
    for (char c : p)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        return in.unknown("the annotation `" + dotted + "`", site);
  Value v;
  for (FrameObj* f = fn ? fn->closure : nullptr; f && v.isBottom(); f = f->enclosing)
    if (!f->classBody)
      if (const Value* found = f->locals.find(parts[0]))
        v = *found;
  if (!module && fn)
    module = fn->module;
  if (v.isBottom() && module)
    if (const Value* found = module->ns.find(parts[0]))
      v = *found;
  if (v.isBottom())
    if (const Value* found = in.builtinsModule()->ns.find(parts[0]))
      v = *found;
  if (v.isBottom())
    return in.unknown("the annotation `" + dotted + "`", site);
  for (size_t i = 1; i < parts.size(); ++i)
    v = in.getAttr(v, parts[i], site);
  return v;
}

// a == b, lists and dicts element by element (the core compares them by identity).
std::optional<bool> valuesEqual(Interpreter& in, const Value& a, const Value& b,
                                mlir::Operation* site, int depth) {
  auto* ta = llvm::dyn_cast_or_null<TupleObj>(a.single());
  auto* tb = llvm::dyn_cast_or_null<TupleObj>(b.single());
  if (ta && tb && depth < 8) {
    if (ta->elems.size() != tb->elems.size())
      return false;
    bool unsure = false;
    for (size_t i = 0; i < ta->elems.size(); ++i) {
      std::optional<bool> e = valuesEqual(in, ta->elems[i], tb->elems[i], site, depth + 1);
      if (e == false)
        return false;
      unsure = unsure || !e;
    }
    return unsure ? std::nullopt : std::optional<bool>(true);
  }
  auto* la = llvm::dyn_cast_or_null<ListObj>(a.single());
  auto* lb = llvm::dyn_cast_or_null<ListObj>(b.single());
  if (la && lb && la->kind == lb->kind && la->kind == Kind::List && depth < 8) {
    if (la == lb)
      return true;
    if (!la->exact || !lb->exact)
      return std::nullopt;
    if (la->elems.size() != lb->elems.size())
      return false;
    bool unsure = false;
    for (size_t i = 0; i < la->elems.size(); ++i) {
      std::optional<bool> e = valuesEqual(in, la->elems[i], lb->elems[i], site, depth + 1);
      if (e == false)
        return false;
      unsure = unsure || !e;
    }
    return unsure ? std::nullopt : std::optional<bool>(true);
  }
  auto* da = llvm::dyn_cast_or_null<DictObj>(a.single());
  auto* db = llvm::dyn_cast_or_null<DictObj>(b.single());
  if (da && db && depth < 8) {
    if (da == db)
      return true;
    if (!da->exact || !db->exact)
      return std::nullopt;
    if (da->items.size() != db->items.size())
      return false;
    bool unsure = false;
    for (const auto& [k, v] : da->items) {
      const Value* other = nullptr;
      for (const auto& [k2, v2] : db->items) {
        std::optional<bool> s =
            k.single() && k2.single() ? sameValue(k.single(), k2.single()) : std::nullopt;
        if (s == true)
          other = &v2;
        else if (!s)
          unsure = true;
      }
      if (!other) {
        if (!unsure)
          return false;
        continue;
      }
      std::optional<bool> e = valuesEqual(in, v, *other, site, depth + 1);
      if (e == false)
        return false;
      unsure = unsure || !e;
    }
    return unsure ? std::nullopt : std::optional<bool>(true);
  }
  return in.truth(in.compare("==", a, b, site), site);
}

} // namespace pallas::eval::overlay
