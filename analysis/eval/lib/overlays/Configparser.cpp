// Overlay: configparser. Settings blocks the program spells out
// (`cp.read_string(SETTINGS_INI)`, `cp.read_dict({...})`) are parsed as
// CPython's ConfigParser parses them: `[section]` headers, `key = value` and
// `key: value` lines (option names lower-cased, values stripped), full-line
// `#` / `;` comments, indented continuation lines, and the DEFAULT section
// every section falls back to. Values are strings; getboolean / getint /
// getfloat convert them as CPython does (a value they reject raises
// ValueError there: unknown here). A file read at run time (`cp.read(path)`)
// and a value with `%(...)s` interpolation are unknown, never guessed.
#include "Util.h"

#include <cctype>

namespace pallas::eval {
namespace {

using namespace overlay;

ClassObj* parserClass(Interpreter& in) {
  return in.externalClass("configparser.ConfigParser");
}
ClassObj* sectionClass(Interpreter& in) {
  return in.externalClass("configparser.SectionProxy");
}

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The parser's section (made on first use), and whether the parser's
// content is known (nothing read from a file).
InstanceObj* section(Interpreter& in, InstanceObj* parser, const std::string& name, bool make) {
  if (auto* s = llvm::dyn_cast_or_null<InstanceObj>(attr(parser, "section:" + name).single()))
    return s;
  if (!make)
    return nullptr;
  auto* s = instance(in, sectionClass(in));
  put(in, s, "name", in.str(name));
  put(in, s, "_parser", Value(parser));
  put(in, parser, "section:" + name, Value(s));
  if (name != "DEFAULT") {
    std::string order =
        attr(parser, "_order").single() ? *strOf(parser->attrs.find("_order")) + '\n' + name : name;
    put(in, parser, "_order", in.str(order));
  }
  return s;
}

bool contentKnown(Interpreter& in, InstanceObj* parser, mlir::Operation* site) {
  return in.truth(attr(parser, "_from_file"), site) != true;
}

void setOption(Interpreter& in, InstanceObj* sec, const std::string& option, const Value& v) {
  put(in, sec, "option:" + lower(option), v);
}

// read_string's grammar, for the text the program gives; false when a line
// is none of the forms (CPython raises a ParsingError).
bool parseInto(Interpreter& in, InstanceObj* parser, std::string_view text) {
  InstanceObj* current = nullptr;
  std::string key, value;
  auto flush = [&] {
    if (current && !key.empty())
      setOption(in, current, key, in.str(trim(value)));
    key.clear();
    value.clear();
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() + 1 : end + 1;
    std::string s = trim(std::string(line));
    if (s.empty() || s[0] == '#' || s[0] == ';') {
      // A blank line stays in a value an indented line continues after it
      // (empty_lines_in_values); trailing ones are stripped at the end.
      if (s.empty() && !key.empty())
        value += "\n";
      continue;
    }
    bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    if (indented && !key.empty()) {
      value += "\n" + s; // a continuation line
      continue;
    }
    flush();
    if (s.front() == '[' && s.back() == ']') {
      current = section(in, parser, s.substr(1, s.size() - 2), true);
      continue;
    }
    size_t sep = s.find_first_of("=:");
    if (!current || sep == std::string::npos)
      return false;
    key = trim(s.substr(0, sep));
    value = trim(s.substr(sep + 1));
  }
  flush();
  return true;
}

Value parserInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* p = selfOf(a))
    section(in, p, "DEFAULT", true);
  return in.none(site);
}

Value readString(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  const std::string* text = strOf(arg(a, 1, "string"));
  if (p && (!text || !parseInto(in, p, *text)))
    put(in, p, "_from_file", in.boolean(true, site));
  return in.none(site);
}

// read(filenames): what the files hold is read at run time.
Value readFile(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* p = selfOf(a))
    put(in, p, "_from_file", in.boolean(true, site));
  return in.unknown("the files configparser read", site);
}

// str(value), as read_dict stores each value: strings, ints and bools;
// anything else unknown.
Value asText(Interpreter& in, const Value& v, mlir::Operation* site) {
  if (strOf(&v))
    return v;
  if (auto* b = llvm::dyn_cast_or_null<BoolObj>(v.single()))
    return in.str(b->v ? "True" : "False", site);
  if (auto i = intOf(&v))
    return in.str(std::to_string(*i), site);
  return in.unknown("str() of a configuration value", site);
}

Value readDict(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  auto* d = llvm::dyn_cast_or_null<DictObj>(
      arg(a, 1, "dictionary") ? arg(a, 1, "dictionary")->single() : nullptr);
  if (!p)
    return in.none(site);
  if (!d || !d->exact) {
    put(in, p, "_from_file", in.boolean(true, site));
    return in.none(site);
  }
  for (const auto& [k, v] : d->items) {
    const std::string* name = strOf(&k);
    auto* options = llvm::dyn_cast_or_null<DictObj>(v.single());
    if (!name || !options || !options->exact) {
      put(in, p, "_from_file", in.boolean(true, site));
      return in.none(site);
    }
    InstanceObj* sec = section(in, p, *name, true);
    for (const auto& [ok, ov] : options->items) {
      const std::string* option = strOf(&ok);
      if (!option)
        continue;
      // read_dict stores str(value).
      setOption(in, sec, *option, asText(in, ov, site));
    }
  }
  return in.none(site);
}

// The raw value of an option: the section's, else DEFAULT's; nullopt when
// neither has it (NoOptionError), unknown when the content is not known.
std::optional<Value> lookup(Interpreter& in, InstanceObj* parser, const std::string& sectionName,
                            const std::string& option, mlir::Operation* site) {
  if (!contentKnown(in, parser, site))
    return in.unknown("option " + option + " of configuration section " + sectionName, site);
  for (const std::string& where : {sectionName, std::string("DEFAULT")})
    if (InstanceObj* sec = section(in, parser, where, false))
      if (const Value* v = sec->attrs.find("option:" + lower(option))) {
        const std::string* s = strOf(v);
        if (s && s->find('%') != std::string::npos)
          return in.unknown("an interpolated configuration value", site);
        return *v;
      }
  return std::nullopt;
}

// The conversions of getboolean / getint / getfloat, as CPython's
// ConfigParser makes them; unknown where it raises ValueError.
Value convert(Interpreter& in, const Value& raw, const std::string& how, mlir::Operation* site) {
  const std::string* s = strOf(&raw);
  if (!s || how.empty())
    return raw;
  std::string v = lower(trim(*s));
  if (how == "boolean") {
    if (v == "1" || v == "yes" || v == "true" || v == "on")
      return in.boolean(true, site);
    if (v == "0" || v == "no" || v == "false" || v == "off")
      return in.boolean(false, site);
    return in.unknown("not a boolean: " + *s, site);
  }
  // int() and float() of the text, as configparser calls them.
  if (how == "int") {
    if (std::optional<int64_t> n = pythonInt(*s))
      return in.integer(*n, site);
    return in.unknown("not an int: " + *s, site);
  }
  if (std::optional<double> d = pythonFloat(*s))
    return Value(in.heap().floating(*d), site);
  return in.unknown("not a float: " + *s, site);
}

// get(section, option, *, fallback) and its typed forms on the parser, or
// proxy.get(option, fallback) on a section.
Value typedGet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const std::string& how,
               bool item = false) {
  InstanceObj* target = selfOf(a);
  if (!target)
    return in.unknown("a configuration value", site);
  InstanceObj* parser = target;
  std::string sectionName;
  size_t optionAt = 2;
  if (target->cls == sectionClass(in)) {
    parser = llvm::dyn_cast_or_null<InstanceObj>(attr(target, "_parser").single());
    const std::string* n = strOf(target->attrs.find("name"));
    if (!parser || !n)
      return in.unknown("a configuration value", site);
    sectionName = *n;
    optionAt = 1;
  } else if (const std::string* n = strOf(arg(a, 1, "section"))) {
    sectionName = *n;
  } else {
    return in.unknown("a configuration value of a section not known", site);
  }
  const std::string* option = strOf(arg(a, optionAt, "option"));
  if (!option)
    return in.unknown("a configuration option not known", site);
  if (std::optional<Value> raw = lookup(in, parser, sectionName, *option, site))
    return convert(in, *raw, how, site);
  if (const Value* fallback = a.keyword("fallback"))
    return *fallback;
  if (optionAt == 1 && !item) // a section's get*(option, fallback=None)
    return arg(a, 2, "fallback") ? *arg(a, 2, "fallback") : in.none(site);
  return in.unknown("option " + *option + " missing from section " + sectionName, site);
}

Value get(Interpreter& in, const CallArgs& a, mlir::Operation* s, const Object*) {
  return typedGet(in, a, s, "");
}
Value getBoolean(Interpreter& in, const CallArgs& a, mlir::Operation* s, const Object*) {
  return typedGet(in, a, s, "boolean");
}
Value getInt(Interpreter& in, const CallArgs& a, mlir::Operation* s, const Object*) {
  return typedGet(in, a, s, "int");
}
Value getFloat(Interpreter& in, const CallArgs& a, mlir::Operation* s, const Object*) {
  return typedGet(in, a, s, "float");
}

// parser["section"]: its proxy (KeyError for a missing one: unknown).
Value parserGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  const std::string* name = strOf(arg(a, 1));
  if (!p || !name)
    return in.unknown("a configuration section", site);
  if (InstanceObj* sec = section(in, p, *name, false))
    return Value(sec, site);
  if (!contentKnown(in, p, site))
    return Value(section(in, p, *name, true), site); // its options are unknown (lookup says so)
  return in.unknown("configuration section " + *name + " (missing)", site);
}

// proxy["option"].
Value sectionGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return typedGet(in, a, site, "", true);
}

Value parserContains(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  const std::string* name = strOf(arg(a, 1));
  if (!p || !name || !contentKnown(in, p, site))
    return in.unknown("whether a configuration section exists", site);
  return in.boolean(section(in, p, *name, false) != nullptr, site);
}

Value sectionContains(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* sec = selfOf(a);
  auto* parser = sec ? llvm::dyn_cast_or_null<InstanceObj>(attr(sec, "_parser").single()) : nullptr;
  const std::string* name = sec ? strOf(sec->attrs.find("name")) : nullptr;
  const std::string* option = strOf(arg(a, 1));
  if (!parser || !name || !option)
    return in.unknown("whether a configuration option exists", site);
  if (!contentKnown(in, parser, site))
    return in.unknown("whether a configuration option exists", site);
  InstanceObj* def = section(in, parser, "DEFAULT", false);
  bool has = sec->attrs.find("option:" + lower(*option)) ||
             (def && def->attrs.find("option:" + lower(*option)));
  return in.boolean(has, site);
}

Value sections(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  if (!p || !contentKnown(in, p, site))
    return in.unknown("the configuration's sections", site);
  std::vector<Value> names;
  if (const std::string* order = strOf(p->attrs.find("_order")))
    for (size_t start = 0; start <= order->size();) {
      size_t end = order->find('\n', start);
      names.push_back(in.str(order->substr(start, end - start), site));
      start = end == std::string::npos ? order->size() + 1 : end + 1;
    }
  return in.list(names, site);
}

Value hasSection(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* f) {
  return parserContains(in, a, site, f);
}

Value setValue(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  const std::string* name = strOf(arg(a, 1, "section"));
  const std::string* option = strOf(arg(a, 2, "option"));
  const Value* value = arg(a, 3, "value");
  if (p && name && option && value)
    setOption(in, section(in, p, *name, true), *option, *value);
  else if (p)
    put(in, p, "_from_file", in.boolean(true, site));
  return in.none(site);
}

Value addSection(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* p = selfOf(a);
  if (const std::string* name = strOf(arg(a, 1, "section")); p && name)
    section(in, p, *name, true);
  return in.none(site);
}

class ConfigparserOverlay final : public Overlay {
public:
  const char* name() const override { return "configparser"; }
  void install(Interpreter& in) override {
    ClassObj* parser = parserClass(in);
    method(in, parser, "__init__", parserInit);
    method(in, parser, "read_string", readString);
    method(in, parser, "read", readFile);
    method(in, parser, "read_file", readFile);
    method(in, parser, "read_dict", readDict);
    method(in, parser, "get", get);
    method(in, parser, "getboolean", getBoolean);
    method(in, parser, "getint", getInt);
    method(in, parser, "getfloat", getFloat);
    method(in, parser, "__getitem__", parserGetitem);
    method(in, parser, "__contains__", parserContains);
    method(in, parser, "has_section", hasSection);
    method(in, parser, "sections", sections);
    method(in, parser, "set", setValue);
    method(in, parser, "add_section", addSection);
    ClassObj* sec = sectionClass(in);
    method(in, sec, "get", get);
    method(in, sec, "getboolean", getBoolean);
    method(in, sec, "getint", getInt);
    method(in, sec, "getfloat", getFloat);
    method(in, sec, "__getitem__", sectionGetitem);
    method(in, sec, "__contains__", sectionContains);
    ModuleObj* m = in.externalModule("configparser");
    m->ns.set("ConfigParser", Value(parser));
    m->ns.set("RawConfigParser", Value(parser));
    m->ns.set("SectionProxy", Value(sec));
  }
};

} // namespace

std::unique_ptr<Overlay> makeConfigparserOverlay() {
  return std::make_unique<ConfigparserOverlay>();
}

} // namespace pallas::eval
