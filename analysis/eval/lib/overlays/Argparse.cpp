// Overlay: argparse. ArgumentParser records its arguments as Action
// objects (dest, default, type, nargs, const, choices, required, and the
// action: store, store_true/false, store_const, append, count, extend,
// BooleanOptionalAction, help, version, sub-commands). parse_args with a
// list of strings the program spells out parses them as CPython's argparse
// does (abbreviations, `-vv` clusters, `--x=1`, nargs, `--`, positionals
// matched by the same patterns, sub-commands, type conversion, choices,
// required arguments; an error raises SystemExit). Without a list (the
// command line) the program is judged as written, run without arguments:
// the empty command line is parsed, so every option has its default. When
// that fails (a required argument) or the parser has sub-commands (one is
// chosen when it runs), each attribute of the
// Namespace is its default joined with an Unknown naming the option
// ("command-line option --interpret"). A sub-command is one of its names.
#include "Util.h"

#include <cerrno>
#include <regex>
#include <set>
#include <tuple>

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr const char* kSuppress = "==SUPPRESS==";

ClassObj* parserClass(Interpreter& in) {
  return in.externalClass("argparse.ArgumentParser");
}
ClassObj* actionClass(Interpreter& in) {
  return in.externalClass("argparse.Action");
}
ClassObj* namespaceClass(Interpreter& in) {
  return in.externalClass("argparse.Namespace");
}

bool isSuppress(const Value& v) {
  const std::string* s = strOf(&v);
  return s && *s == kSuppress;
}

ListObj* actionsOf(Interpreter& in, InstanceObj* parser) {
  if (auto* l = llvm::dyn_cast_or_null<ListObj>(attr(parser, "_actions").single()))
    return l;
  auto* l = in.heap().make<ListObj>();
  put(in, parser, "_actions", Value(l));
  return l;
}

DictObj* defaultsOf(Interpreter& in, InstanceObj* parser) {
  if (auto* d = llvm::dyn_cast_or_null<DictObj>(attr(parser, "_defaults").single()))
    return d;
  auto* d = in.heap().make<DictObj>();
  put(in, parser, "_defaults", Value(d));
  return d;
}

// ---- building parsers ------------------------------------------------------------------

std::string destOf(const std::vector<std::string>& options) {
  std::string pick;
  for (const std::string& o : options)
    if (o.size() > 2 && o[0] == '-' && o[1] == '-') {
      pick = o;
      break;
    }
  if (pick.empty() && !options.empty())
    pick = options[0];
  size_t k = pick.find_first_not_of('-');
  std::string d = k == std::string::npos ? pick : pick.substr(k);
  for (char& c : d)
    if (c == '-')
      c = '_';
  return d;
}

// What `action=` names: its kind, or "custom" for a class of the program.
std::string kindOf(Interpreter& in, const Value* action) {
  if (!action || isNone(action))
    return "store";
  if (const std::string* s = strOf(action))
    return *s;
  Object* o = action->single();
  if (auto* c = llvm::dyn_cast_or_null<ClassObj>(o)) {
    if (c->external == "argparse.BooleanOptionalAction")
      return "boolean_optional";
    if (c->external == "argparse._StoreTrueAction")
      return "store_true";
    if (c->external == "argparse._StoreFalseAction")
      return "store_false";
  }
  if (auto* e = llvm::dyn_cast_or_null<ExternalObj>(o))
    if (e->qualname == "argparse.BooleanOptionalAction")
      return "boolean_optional";
  (void)in;
  return "custom";
}

Value addArgumentTo(Interpreter& in, InstanceObj* parser, const CallArgs& a,
                    mlir::Operation* site) {
  std::vector<std::string> names;
  bool known = true;
  for (size_t i = 1; i < a.positional.size(); ++i) {
    if (const std::string* s = strOf(&a.positional[i]))
      names.push_back(*s);
    else
      known = false;
  }
  InstanceObj* act = instance(in, actionClass(in));
  auto kw = [&](const char* k) { return a.keyword(k); };
  std::string kind = kindOf(in, kw("action"));
  bool optional = !names.empty() && names[0].size() > 0 && names[0][0] == '-';
  std::vector<std::string> options = optional ? names : std::vector<std::string>{};
  if (kind == "boolean_optional") {
    std::vector<std::string> with;
    for (const std::string& o : options) {
      with.push_back(o);
      if (o.rfind("--", 0) == 0)
        with.push_back("--no-" + o.substr(2));
    }
    options = with;
  }
  std::vector<Value> optionValues;
  optionValues.reserve(options.size());
  for (const std::string& o : options)
    optionValues.push_back(in.str(o, site));
  act->attrs.set("option_strings", in.list(optionValues, site));
  Value dest;
  if (const Value* d = kw("dest"))
    dest = *d;
  else if (!known || names.empty())
    dest = in.unknown("the destination of an argument", site);
  else
    dest = in.str(optional ? destOf(names) : names[0], site);
  act->attrs.set("dest", dest);
  Value nargs = kw("nargs") ? *kw("nargs") : in.none(site);
  if (kind == "store_true" || kind == "store_false" || kind == "store_const" ||
      kind == "append_const" || kind == "count" || kind == "help" || kind == "version" ||
      kind == "boolean_optional")
    nargs = in.integer(0, site);
  act->attrs.set("nargs", nargs);
  Value cnst = kw("const") ? *kw("const") : in.none(site);
  if (kind == "store_true")
    cnst = in.boolean(true, site);
  if (kind == "store_false")
    cnst = in.boolean(false, site);
  act->attrs.set("const", cnst);
  Value dflt;
  if (const Value* d = kw("default"))
    dflt = *d;
  else if (kind == "store_true")
    dflt = in.boolean(false, site);
  else if (kind == "store_false")
    dflt = in.boolean(true, site);
  else if (kind == "help" || kind == "version")
    dflt = in.str(kSuppress, site);
  else if (const Value* ad = parser->attrs.find("argument_default"))
    dflt = *ad;
  else
    dflt = in.none(site);
  // set_defaults before add_argument still wins (ArgumentParser._add_action).
  if (strOf(&dest))
    if (DictObj* defs = defaultsOf(in, parser))
      for (const auto& [k, v] : defs->items)
        if (k.single() && dest.single() && sameValue(k.single(), dest.single()) == true)
          dflt = v;
  act->attrs.set("default", dflt);
  act->attrs.set("type", kw("type") ? *kw("type") : in.none(site));
  act->attrs.set("choices", kw("choices") ? *kw("choices") : in.none(site));
  bool required = false;
  if (const Value* r = kw("required"))
    required = in.truth(*r, site).value_or(false);
  if (!optional) {
    const std::string* n = strOf(&nargs);
    required = !(n && (*n == "?" || *n == "*")) || (n && *n == "*" && !kw("default"));
  }
  act->attrs.set("required", in.boolean(required, site));
  act->attrs.set("help", kw("help") ? *kw("help") : in.none(site));
  act->attrs.set("metavar", kw("metavar") ? *kw("metavar") : in.none(site));
  act->attrs.set("_kind", in.str(known ? kind : "custom", site));
  ListObj* actions = actionsOf(in, parser);
  in.heap().willWrite(actions);
  actions->elems.push_back(Value(act, site));
  return Value(act, site);
}

Value parserInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  if (!self)
    return in.none(site);
  put(in, self, "_actions", in.list({}, site));
  put(in, self, "_defaults", Value(in.heap().make<DictObj>(), site));
  for (const char* k : {"prog", "description", "epilog"})
    put(in, self, k, a.keyword(k) ? *a.keyword(k) : in.none(site));
  if (const Value* ad = a.keyword("argument_default"))
    put(in, self, "argument_default", *ad);
  put(in, self, "allow_abbrev",
      a.keyword("allow_abbrev") ? *a.keyword("allow_abbrev") : in.boolean(true, site));
  const Value* addHelp = a.keyword("add_help");
  if (!addHelp || in.truth(*addHelp, site) != false) {
    CallArgs h;
    h.positional = {a.positional[0], in.str("-h", site), in.str("--help", site)};
    h.keywords = {{"action", in.str("help", site)}};
    addArgumentTo(in, self, h, site);
  }
  // parents=[...]: their arguments (not their help) come first.
  if (const Value* parents = a.keyword("parents"))
    for (const Value& p : in.elements(*parents, site).items)
      if (auto* pi = llvm::dyn_cast_or_null<InstanceObj>(p.single())) {
        ListObj* mine = actionsOf(in, self);
        for (const Value& act : actionsOf(in, pi)->elems) {
          auto* ai = llvm::dyn_cast_or_null<InstanceObj>(act.single());
          const std::string* k = ai ? strOf(ai->attrs.find("_kind")) : nullptr;
          if (k && *k == "help")
            continue;
          in.heap().willWrite(mine);
          mine->elems.push_back(act);
        }
        for (const auto& [k, v] : defaultsOf(in, pi)->items)
          in.setItem(Value(defaultsOf(in, self)), k, v, site);
      }
  return in.none(site);
}

// The parser behind `self` (a parser, or an argument group of one).
InstanceObj* parserOf(InstanceObj* self) {
  for (int hops = 0; self && hops < 8; ++hops) {
    if (self->cls->external != "argparse._ArgumentGroup")
      return self;
    self = llvm::dyn_cast_or_null<InstanceObj>(attr(self, "_container").single());
  }
  return self;
}

Value addArgument(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* parser = parserOf(selfOf(a));
  if (!parser)
    return in.unknown("add_argument()", site);
  return addArgumentTo(in, parser, a, site);
}

Value addGroup(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  InstanceObj* group = instance(in, in.externalClass("argparse._ArgumentGroup"));
  group->attrs.set("_container", self ? Value(self, site) : in.unknown("a parser", site));
  group->attrs.set("title", arg(a, 1, "title") ? *arg(a, 1, "title") : in.none(site));
  return Value(group, site);
}

Value setDefaults(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* parser = parserOf(selfOf(a));
  if (!parser)
    return in.none(site);
  DictObj* defs = defaultsOf(in, parser);
  for (const auto& [k, v] : a.keywords) {
    in.setItem(Value(defs, site), in.str(k, site), v, site);
    // Arguments with that destination take the default too.
    for (const Value& act : actionsOf(in, parser)->elems)
      if (auto* ai = llvm::dyn_cast_or_null<InstanceObj>(act.single()))
        if (const std::string* d = strOf(ai->attrs.find("dest")); d && *d == k)
          put(in, ai, "default", v);
  }
  return in.none(site);
}

Value getDefault(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* parser = parserOf(selfOf(a));
  const std::string* dest = strOf(arg(a, 1, "dest"));
  if (!parser || !dest)
    return in.unknown("get_default()", site);
  for (const Value& act : actionsOf(in, parser)->elems)
    if (auto* ai = llvm::dyn_cast_or_null<InstanceObj>(act.single()))
      if (const std::string* d = strOf(ai->attrs.find("dest")); d && *d == *dest)
        return attr(ai, "default");
  for (const auto& [k, v] : defaultsOf(in, parser)->items)
    if (const std::string* s = strOf(&k); s && *s == *dest)
      return v;
  return in.none(site);
}

Value addSubparsers(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* parser = parserOf(selfOf(a));
  if (!parser)
    return in.unknown("add_subparsers()", site);
  InstanceObj* act = instance(in, in.externalClass("argparse._SubParsersAction"));
  act->attrs.set("option_strings", in.list({}, site));
  act->attrs.set("dest", a.keyword("dest") ? *a.keyword("dest") : in.str(kSuppress, site));
  act->attrs.set("nargs", in.str("A...", site));
  act->attrs.set("const", in.none(site));
  act->attrs.set("default", a.keyword("dest") ? in.none(site) : in.str(kSuppress, site));
  act->attrs.set("type", in.none(site));
  act->attrs.set("choices", Value(in.heap().make<DictObj>(), site));
  const Value* req = a.keyword("required");
  act->attrs.set("required", in.boolean(req && in.truth(*req, site) == true, site));
  act->attrs.set("help", in.none(site));
  act->attrs.set("metavar", in.none(site));
  act->attrs.set("_kind", in.str("parsers", site));
  ListObj* actions = actionsOf(in, parser);
  in.heap().willWrite(actions);
  actions->elems.push_back(Value(act, site));
  return Value(act, site);
}

Value addParser(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* subs = selfOf(a);
  const Value* name = arg(a, 1, "name");
  if (!subs || !name)
    return in.unknown("add_parser()", site);
  Value child = in.call(Value(parserClass(in), site), rest(rest(a)), site);
  if (Value* choices = subs->attrs.find("choices")) {
    in.setItem(*choices, *name, child, site);
    if (const Value* aliases = a.keyword("aliases"))
      for (const Value& al : in.elements(*aliases, site).items)
        in.setItem(*choices, al, child, site);
  }
  return child;
}

// ---- parsing -----------------------------------------------------------------------------

enum Nargs : int {
  One = -1,
  Optional = -2,
  ZeroOrMore = -3,
  OneOrMore = -4,
  Parser = -5,
  Other = -6
};

struct Act {
  InstanceObj* obj = nullptr;
  std::vector<std::string> options;
  std::string dest; // empty: not known
  bool suppressDest = false;
  std::string kind;
  int nargs = One;
  Value cnst, dflt, type, choices;
  bool required = false;
};

struct Failure {}; // argparse's error(): SystemExit(2)
struct Exit {};    // -h / --version: SystemExit(0)

bool readActions(Interpreter& in, InstanceObj* parser, std::vector<Act>& out) {
  ListObj* l = actionsOf(in, parser);
  if (!l->exact)
    return false;
  for (const Value& v : l->elems) {
    auto* ai = llvm::dyn_cast_or_null<InstanceObj>(v.single());
    if (!ai)
      return false;
    Act act;
    act.obj = ai;
    for (const Value& o : in.elements(attr(ai, "option_strings"), nullptr).items) {
      const std::string* s = strOf(&o);
      if (!s)
        return false;
      act.options.push_back(*s);
    }
    Value dest = attr(ai, "dest");
    if (const std::string* d = strOf(&dest)) {
      act.dest = *d;
      act.suppressDest = *d == kSuppress;
    } else {
      return false;
    }
    const std::string* kind = strOf(ai->attrs.find("_kind"));
    act.kind = kind ? *kind : "custom";
    Value nargs = attr(ai, "nargs");
    if (isNone(&nargs))
      act.nargs = One;
    else if (auto n = intOf(&nargs))
      act.nargs = static_cast<int>(*n);
    else if (const std::string* s = strOf(&nargs))
      act.nargs = *s == "?"      ? Optional
                  : *s == "*"    ? ZeroOrMore
                  : *s == "+"    ? OneOrMore
                  : *s == "A..." ? Parser
                                 : Other;
    else
      return false;
    if (act.nargs == Other)
      return false;
    act.cnst = attr(ai, "const");
    act.dflt = attr(ai, "default");
    act.type = attr(ai, "type");
    act.choices = attr(ai, "choices");
    act.required = in.truth(attr(ai, "required"), nullptr).value_or(false);
    out.push_back(std::move(act));
  }
  return true;
}

std::string nargsPattern(const Act& a) {
  std::string p;
  switch (a.nargs) {
  case One:
    p = "(-*A-*)";
    break;
  case Optional:
    p = "(-*A?-*)";
    break;
  case ZeroOrMore:
    p = "(-*[A-]*)";
    break;
  case OneOrMore:
    p = "(-*A[A-]*)";
    break;
  case Parser:
    p = "(-*A[-AO]*)";
    break;
  default: {
    std::string as;
    for (int i = 0; i < a.nargs; ++i)
      as += (i ? "-*A" : "A");
    p = "(-*" + as + "-*)";
  }
  }
  if (!a.options.empty()) {
    std::string q;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] == '-' && i + 1 < p.size() && p[i + 1] == '*') {
        ++i;
        continue;
      }
      if (p[i] == '-')
        continue;
      q += p[i];
    }
    p = q;
  }
  return p;
}

struct Parse {
  Interpreter& in;
  mlir::Operation* site;
  InstanceObj* parser;
  InstanceObj* ns;
  std::vector<Act> acts;
  std::vector<std::string> extras;

  Value str(const std::string& s) { return in.str(s, site); }

  bool hasAttr(const std::string& name) { return ns->attrs.find(name) != nullptr; }
  void set(const std::string& name, const Value& v) { put(in, ns, name, v); }

  Value convert(const Act& a, const std::string& s) {
    Object* t = a.type.single();
    if (!t || t->kind == Kind::None)
      return str(s);
    if (auto* b = llvm::dyn_cast<BuiltinObj>(t)) {
      if (b->name == "builtins.str")
        return str(s);
      if (b->name == "builtins.int") {
        errno = 0;
        char* end = nullptr;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || !end || *end != 0 || errno == ERANGE)
          throw Failure{};
        return in.integer(v, site);
      }
      if (b->name == "builtins.float") {
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || !end || *end != 0)
          throw Failure{};
        return Value(in.heap().floating(v), site);
      }
    }
    CallArgs ca;
    ca.positional = {str(s)};
    Value r = in.call(a.type, ca, site);
    if (in.takeRaised())
      throw Failure{};
    return r;
  }

  void check(const Act& a, const Value& v) {
    if (isNone(&a.choices) || a.choices.isBottom())
      return;
    std::optional<bool> t = in.truth(in.compare("in", v, a.choices, site), site);
    if (t == false)
      throw Failure{};
  }

  Value values(const Act& a, std::vector<std::string> strings, const std::string& optionString) {
    if (a.nargs != Parser) {
      auto it = std::find(strings.begin(), strings.end(), "--");
      if (it != strings.end())
        strings.erase(it);
    }
    (void)optionString;
    if (strings.empty() && a.nargs == Optional) {
      Value v = a.options.empty() ? a.dflt : a.cnst;
      if (const std::string* s = strOf(&v)) {
        v = convert(a, *s);
        check(a, v);
      }
      return v;
    }
    if (strings.empty() && a.nargs == ZeroOrMore && a.options.empty()) {
      Value v = isNone(&a.dflt) ? in.list({}, site) : a.dflt;
      check(a, v);
      return v;
    }
    if (strings.size() == 1 && (a.nargs == One || a.nargs == Optional)) {
      Value v = convert(a, strings[0]);
      check(a, v);
      return v;
    }
    std::vector<Value> out;
    out.reserve(strings.size());
    for (const std::string& s : strings)
      out.push_back(convert(a, s));
    if (a.nargs == Parser) {
      if (!out.empty())
        check(a, out[0]);
    } else {
      for (const Value& v : out)
        check(a, v);
    }
    return in.list(out, site);
  }

  Value copyList(const std::string& dest) {
    const Value* cur = ns->attrs.find(dest);
    std::vector<Value> items;
    if (cur && !isNone(cur))
      items = in.elements(*cur, site).items;
    return in.list(items, site);
  }

  void take(const Act& a, const std::vector<std::string>& strings, const std::string& optionString,
            std::set<const Act*>& seen) {
    seen.insert(&a);
    Value v = values(a, strings, optionString);
    if (isSuppress(v))
      return;
    const std::string& d = a.dest;
    if (a.kind == "store") {
      set(d, v);
    } else if (a.kind == "store_const" || a.kind == "store_true" || a.kind == "store_false") {
      set(d, a.cnst);
    } else if (a.kind == "append" || a.kind == "append_const") {
      Value items = copyList(d);
      auto* l = llvm::cast<ListObj>(items.single());
      l->elems.push_back(a.kind == "append" ? v : a.cnst);
      set(d, items);
    } else if (a.kind == "extend") {
      Value items = copyList(d);
      auto* l = llvm::cast<ListObj>(items.single());
      for (const Value& x : in.elements(v, site).items)
        l->elems.push_back(x);
      set(d, items);
    } else if (a.kind == "count") {
      const Value* cur = ns->attrs.find(d);
      int64_t n = 0;
      if (cur && !isNone(cur)) {
        std::optional<int64_t> c = intOf(cur);
        if (!c) {
          set(d, in.unknown("a count", site));
          return;
        }
        n = *c;
      }
      set(d, in.integer(n + 1, site));
    } else if (a.kind == "boolean_optional") {
      set(d, in.boolean(optionString.rfind("--no-", 0) != 0, site));
    } else if (a.kind == "help" || a.kind == "version") {
      throw Exit{};
    } else if (a.kind == "parsers") {
      subcommand(a, strings);
    } else {
      set(d, in.unknown("what the argparse action of `" + d + "` stores", site));
    }
  }

  void subcommand(const Act& a, const std::vector<std::string>& strings) {
    if (strings.empty())
      throw Failure{};
    if (!a.suppressDest)
      set(a.dest, str(strings[0]));
    Value child = in.subscript(a.choices, str(strings[0]), site);
    auto* ci = llvm::dyn_cast_or_null<InstanceObj>(child.single());
    if (!ci || ci->cls != parserClass(in))
      throw Failure{}; // invalid choice
    InstanceObj* subns = instance(in, namespaceClass(in));
    Parse sub{in, site, ci, subns, {}, {}};
    if (!readActions(in, ci, sub.acts))
      throw Failure{};
    std::vector<std::string> rest(strings.begin() + 1, strings.end());
    sub.run(rest);
    for (llvm::StringRef n : subns->attrs.names())
      set(n.str(), *subns->attrs.find(n));
    extras.insert(extras.end(), sub.extras.begin(), sub.extras.end());
  }

  struct OptionTuple {
    const Act* act = nullptr; // null: an option the parser does not know
    std::string option;
    std::optional<std::string> explicitArg;
  };

  const Act* byOption(const std::string& s) {
    for (const Act& a : acts)
      for (const std::string& o : a.options)
        if (o == s)
          return &a;
    return nullptr;
  }

  bool allowAbbrev() { return in.truth(attr(parser, "allow_abbrev"), site).value_or(true); }

  std::optional<OptionTuple> parseOptional(const std::string& s) {
    if (s.empty() || s[0] != '-')
      return std::nullopt;
    if (const Act* a = byOption(s))
      return OptionTuple{a, s, std::nullopt};
    if (s.size() == 1)
      return std::nullopt;
    size_t eq = s.find('=');
    if (eq != std::string::npos)
      if (const Act* a = byOption(s.substr(0, eq)))
        return OptionTuple{a, s.substr(0, eq), s.substr(eq + 1)};
    std::vector<OptionTuple> tuples;
    if (s[1] == '-') {
      if (allowAbbrev()) {
        std::string prefix = eq == std::string::npos ? s : s.substr(0, eq);
        std::optional<std::string> explicitArg;
        if (eq != std::string::npos)
          explicitArg = s.substr(eq + 1);
        for (const Act& a : acts)
          for (const std::string& o : a.options)
            if (o.rfind(prefix, 0) == 0)
              tuples.push_back({&a, o, explicitArg});
      }
    } else {
      std::string shortPrefix = s.substr(0, 2), shortExplicit = s.substr(2);
      for (const Act& a : acts)
        for (const std::string& o : a.options) {
          if (o == shortPrefix)
            tuples.push_back({&a, o, shortExplicit});
          else if (o.rfind(s, 0) == 0)
            tuples.push_back({&a, o, std::nullopt});
        }
    }
    if (tuples.size() > 1)
      throw Failure{}; // ambiguous option
    if (tuples.size() == 1)
      return tuples[0];
    static const std::regex negative("^-\\d+$|^-\\d*\\.\\d+$");
    if (std::regex_search(s, negative)) {
      bool negativeOptions = false;
      for (const Act& a : acts)
        for (const std::string& o : a.options)
          negativeOptions = negativeOptions || std::regex_search(o, negative);
      if (!negativeOptions)
        return std::nullopt;
    }
    if (s.find(' ') != std::string::npos)
      return std::nullopt;
    return OptionTuple{nullptr, s, std::nullopt};
  }

  // How many strings `a` takes from the start of `pattern`; nullopt: none fit.
  std::optional<size_t> matchArgument(const Act& a, const std::string& pattern) {
    std::smatch m;
    std::regex re(nargsPattern(a));
    if (!std::regex_search(pattern, m, re, std::regex_constants::match_continuous))
      return std::nullopt;
    return static_cast<size_t>(m.length(1));
  }

  std::vector<size_t> matchPartial(const std::vector<const Act*>& positionals,
                                   const std::string& pattern) {
    for (size_t i = positionals.size(); i > 0; --i) {
      std::string re;
      for (size_t k = 0; k < i; ++k)
        re += nargsPattern(*positionals[k]);
      std::smatch m;
      std::regex r(re);
      if (std::regex_search(pattern, m, r, std::regex_constants::match_continuous)) {
        std::vector<size_t> counts;
        for (size_t k = 1; k <= i; ++k)
          counts.push_back(static_cast<size_t>(m.length(static_cast<int>(k))));
        return counts;
      }
    }
    return {};
  }

  void run(const std::vector<std::string>& args) {
    for (const Act& a : acts)
      if (!a.suppressDest && !hasAttr(a.dest) && !isSuppress(a.dflt))
        set(a.dest, a.dflt);
    for (const auto& [k, v] : defaultsOf(in, parser)->items)
      if (const std::string* s = strOf(&k); s && !hasAttr(*s))
        set(*s, v);

    std::map<size_t, OptionTuple> optionAt;
    std::string pattern;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--") {
        pattern += '-';
        for (++i; i < args.size(); ++i)
          pattern += 'A';
        break;
      }
      if (std::optional<OptionTuple> t = parseOptional(args[i])) {
        optionAt[i] = *t;
        pattern += 'O';
      } else {
        pattern += 'A';
      }
    }
    std::vector<const Act*> positionals;
    for (const Act& a : acts)
      if (a.options.empty())
        positionals.push_back(&a);
    std::set<const Act*> seen;

    auto consumePositionals = [&](size_t start) {
      std::vector<size_t> counts = matchPartial(positionals, pattern.substr(start));
      for (size_t k = 0; k < counts.size(); ++k) {
        std::vector<std::string> strings(args.begin() + static_cast<long>(start),
                                         args.begin() + static_cast<long>(start + counts[k]));
        start += counts[k];
        take(*positionals[k], strings, "", seen);
      }
      positionals.erase(positionals.begin(),
                        positionals.begin() + static_cast<long>(counts.size()));
      return start;
    };
    auto consumeOptional = [&](size_t start) -> size_t {
      OptionTuple t = optionAt[start];
      const Act* a = t.act;
      std::string option = t.option;
      std::optional<std::string> explicitArg = t.explicitArg;
      std::vector<std::tuple<const Act*, std::vector<std::string>, std::string>> todo;
      size_t stop = start + 1;
      for (;;) {
        if (!a) {
          extras.push_back(args[start]);
          return start + 1;
        }
        if (explicitArg) {
          std::optional<size_t> n = matchArgument(*a, "A");
          if (n == 0u && option.size() > 1 && option[1] != '-' && !explicitArg->empty()) {
            todo.push_back({a, {}, option});
            option = std::string(1, option[0]) + (*explicitArg)[0];
            std::string next = explicitArg->substr(1);
            a = byOption(option);
            if (!a)
              throw Failure{}; // ignored explicit argument
            explicitArg = next.empty() ? std::nullopt : std::optional<std::string>(next);
            continue;
          }
          if (n == 1u) {
            todo.push_back({a, {*explicitArg}, option});
            stop = start + 1;
            break;
          }
          throw Failure{};
        }
        std::optional<size_t> n = matchArgument(*a, pattern.substr(start + 1));
        if (!n)
          throw Failure{}; // expected an argument
        stop = start + 1 + *n;
        todo.push_back({a,
                        std::vector<std::string>(args.begin() + static_cast<long>(start + 1),
                                                 args.begin() + static_cast<long>(stop)),
                        option});
        break;
      }
      for (auto& [act, strings, opt] : todo)
        take(*act, strings, opt, seen);
      return stop;
    };

    size_t start = 0;
    size_t maxOption = optionAt.empty() ? 0 : optionAt.rbegin()->first;
    while (!optionAt.empty() && start <= maxOption) {
      size_t next = optionAt.lower_bound(start)->first;
      if (start != next) {
        size_t end = consumePositionals(start);
        if (end > start) {
          start = end;
          continue;
        }
        start = end;
      }
      if (!optionAt.count(start)) {
        for (size_t k = start; k < next; ++k)
          extras.push_back(args[k]);
        start = next;
      }
      start = consumeOptional(start);
    }
    size_t stop = consumePositionals(start);
    for (size_t k = stop; k < args.size(); ++k)
      extras.push_back(args[k]);

    for (const Act& a : acts) {
      if (seen.count(&a))
        continue;
      if (a.required)
        throw Failure{};
      if (const std::string* s = strOf(&a.dflt); s && !a.suppressDest)
        if (const Value* cur = ns->attrs.find(a.dest); cur && cur->single() == a.dflt.single())
          set(a.dest, convert(a, *s));
    }
  }
};

Value systemExit(Interpreter& in, int code, mlir::Operation* site) {
  InstanceObj* e = instance(in, in.externalClass("builtins.SystemExit"));
  e->attrs.set("code", in.integer(code, site));
  in.raise(Value(e, site));
  return in.unknown("the result of a parse that exits", site);
}

// The strings of an argument list the program spells out, or nullopt.
std::optional<std::vector<std::string>> literalArgs(Interpreter& in, const Value* v,
                                                    mlir::Operation* site) {
  if (!v || isNone(v))
    return std::nullopt;
  Interpreter::Elements e = in.elements(*v, site);
  if (!e.exact)
    return std::nullopt;
  std::vector<std::string> out;
  for (const Value& x : e.items) {
    const std::string* s = strOf(&x);
    if (!s)
      return std::nullopt;
    out.push_back(*s);
  }
  return out;
}

// The command line: each argument's default joined with an Unknown naming it.
void fromCommandLine(Interpreter& in, InstanceObj* parser, InstanceObj* ns, mlir::Operation* site,
                     bool join, int depth) {
  std::vector<Act> acts;
  ListObj* l = actionsOf(in, parser);
  auto set = [&](const std::string& name, Value v) {
    if (const Value* cur = ns->attrs.find(name); cur && join)
      v = in.heap().join(*cur, v);
    else if (cur && !join)
      return; // a namespace given with the attribute keeps it
    put(in, ns, name, v);
  };
  if (!readActions(in, parser, acts)) {
    for (const Value& v : l->elems)
      if (auto* ai = llvm::dyn_cast_or_null<InstanceObj>(v.single()))
        if (const std::string* d = strOf(ai->attrs.find("dest")); d && *d != kSuppress)
          set(*d,
              in.heap().join(attr(ai, "default"), in.unknown("command-line argument " + *d, site)));
    return;
  }
  for (const Act& a : acts) {
    if (a.kind == "help" || a.kind == "version" || (a.suppressDest && a.kind != "parsers"))
      continue;
    std::string name;
    for (const std::string& o : a.options)
      if (o.rfind("--", 0) == 0) {
        name = o;
        break;
      }
    if (name.empty() && !a.options.empty())
      name = a.options[0];
    Value given = in.unknown(a.options.empty() ? "command-line argument " + a.dest
                                               : "command-line option " + name,
                             site);
    if (a.kind == "parsers") {
      Value chosen;
      if (!a.required)
        chosen = in.none(site);
      std::vector<InstanceObj*> children;
      if (auto* d = llvm::dyn_cast_or_null<DictObj>(a.choices.single()))
        for (const auto& [k, child] : d->items) {
          chosen = in.heap().join(chosen, k);
          if (auto* ci = llvm::dyn_cast_or_null<InstanceObj>(child.single()))
            if (std::find(children.begin(), children.end(), ci) == children.end())
              children.push_back(ci);
        }
      if (!a.suppressDest)
        set(a.dest, chosen.isBottom() ? in.unknown("the sub-command", site) : chosen);
      std::vector<std::string> before;
      for (llvm::StringRef n : ns->attrs.names())
        before.push_back(n.str());
      if (depth < 8)
        for (InstanceObj* child : children)
          fromCommandLine(in, child, ns, site, true, depth + 1);
      // Without a sub-command, what only sub-commands set is missing.
      if (!a.required)
        for (llvm::StringRef n : std::vector<llvm::StringRef>(ns->attrs.names()))
          if (std::find(before.begin(), before.end(), n.str()) == before.end())
            put(in, ns, n,
                in.heap().join(
                    *ns->attrs.find(n),
                    in.unknown("`" + n.str() + "` (missing without a sub-command)", site)));
      continue;
    }
    Value dflt = a.dflt;
    if (const std::string* s = strOf(&dflt); s && !isSuppress(dflt) && !isNone(&a.type)) {
      Parse p{in, site, parser, ns, {}, {}};
      try {
        dflt = p.convert(a, *s);
      } catch (const Failure&) {
        dflt = in.unknown("the default of " + a.dest + " converted", site);
      }
    }
    bool positionalRequired = a.options.empty() && a.nargs != Optional && a.nargs != ZeroOrMore;
    Value v = given;
    if (!a.required && !positionalRequired && !isSuppress(dflt)) {
      if (a.options.empty() && a.nargs == ZeroOrMore && isNone(&dflt))
        dflt = in.list({}, site);
      v = in.heap().join(dflt, given);
    }
    set(a.dest, v);
  }
  for (const auto& [k, v] : defaultsOf(in, parser)->items)
    if (const std::string* s = strOf(&k))
      set(*s, v);
}

Value parse(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool known) {
  InstanceObj* parser = selfOf(a);
  if (!parser)
    return in.unknown("parse_args()", site);
  const Value* given = arg(a, 1, "args");
  const Value* nsArg = arg(a, 2, "namespace");
  InstanceObj* ns =
      nsArg && !isNone(nsArg) ? llvm::dyn_cast_or_null<InstanceObj>(nsArg->single()) : nullptr;
  if (!ns)
    ns = instance(in, namespaceClass(in));
  Value nsValue(ns, site);
  std::optional<std::vector<std::string>> strings = literalArgs(in, given, site);
  Parse p{in, site, parser, ns, {}, {}};
  if (strings && readActions(in, parser, p.acts)) {
    try {
      p.run(*strings);
    } catch (const Failure&) {
      return systemExit(in, 2, site);
    } catch (const Exit&) {
      return systemExit(in, 0, site);
    }
    std::vector<Value> extras;
    extras.reserve(p.extras.size());
    for (const std::string& s : p.extras)
      extras.push_back(in.str(s, site));
    if (known)
      return in.tuple({nsValue, in.list(extras, site)}, site);
    if (!extras.empty())
      return systemExit(in, 2, site); // unrecognized arguments
    return nsValue;
  }
  // The command line: the program as written runs without arguments
  // (`python prog.py`), so each option has its default, when an empty
  // command line parses. One it does not (a required argument, a
  // sub-command) leaves what the user passes unknown.
  if (!strings) {
    InstanceObj* trial = instance(in, namespaceClass(in));
    Parse empty{in, site, parser, trial, {}, {}};
    bool parsed = readActions(in, parser, empty.acts);
    // A program with sub-commands is run with one of them: which is unknown.
    for (const Act& act : empty.acts)
      parsed = parsed && act.kind != "parsers";
    if (parsed) {
      try {
        empty.run({});
      } catch (const Failure&) {
        parsed = false;
      } catch (const Exit&) {
        parsed = false;
      }
    }
    if (parsed) {
      for (llvm::StringRef n : trial->attrs.names())
        put(in, ns, n, *trial->attrs.find(n));
      return known ? in.tuple({nsValue, in.list({}, site)}, site) : nsValue;
    }
  }
  fromCommandLine(in, parser, ns, site, false, 0);
  if (known)
    return in.tuple(
        {nsValue, listOf(in, {in.unknown("a command-line argument the parser does not know", site)},
                         false, site)},
        site);
  return nsValue;
}

Value parseArgs(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return parse(in, a, site, false);
}
Value parseKnownArgs(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return parse(in, a, site, true);
}

Value parserError(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return systemExit(in, 2, site);
}
Value parserExit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<int64_t> code =
      a.positional.size() > 1 ? intOf(&a.positional[1]) : std::optional<int64_t>(0);
  return systemExit(in, static_cast<int>(code.value_or(0)), site);
}
Value helpText(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.unknown("the help text of an ArgumentParser", site);
}

Value namespaceInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a))
    for (const auto& [k, v] : a.keywords)
      put(in, self, k, v);
  return in.none(site);
}
Value namespaceContains(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  const std::string* key = strOf(arg(a, 1));
  if (!self || !key)
    return in.unknown("`in` a Namespace", site);
  return in.boolean(self->attrs.find(*key) != nullptr, site);
}

class ArgparseOverlay final : public Overlay {
public:
  const char* name() const override { return "argparse"; }
  void install(Interpreter& in) override {
    ClassObj* parser = parserClass(in);
    method(in, parser, "__init__", parserInit);
    method(in, parser, "add_argument", addArgument);
    method(in, parser, "add_argument_group", addGroup);
    method(in, parser, "add_mutually_exclusive_group", addGroup);
    method(in, parser, "add_subparsers", addSubparsers);
    method(in, parser, "set_defaults", setDefaults);
    method(in, parser, "get_default", getDefault);
    method(in, parser, "parse_args", parseArgs);
    method(in, parser, "parse_intermixed_args", parseArgs);
    method(in, parser, "parse_known_args", parseKnownArgs);
    method(in, parser, "parse_known_intermixed_args", parseKnownArgs);
    method(in, parser, "error", parserError);
    method(in, parser, "exit", parserExit);
    for (const char* n : {"print_help", "print_usage"})
      method(in, parser, n, returnNone);
    for (const char* n : {"format_help", "format_usage"})
      method(in, parser, n, helpText);
    ClassObj* group = in.externalClass("argparse._ArgumentGroup");
    method(in, group, "add_argument", addArgument);
    method(in, group, "add_argument_group", addGroup);
    method(in, group, "add_mutually_exclusive_group", addGroup);
    method(in, group, "set_defaults", setDefaults);
    ClassObj* action = actionClass(in);
    ClassObj* subparsers = libraryClass(in, "argparse._SubParsersAction", {action});
    method(in, subparsers, "add_parser", addParser);
    ClassObj* ns = namespaceClass(in);
    method(in, ns, "__init__", namespaceInit);
    method(in, ns, "__contains__", namespaceContains);

    ModuleObj* m = in.externalModule("argparse");
    m->ns.set("ArgumentParser", Value(parser));
    m->ns.set("Namespace", Value(ns));
    m->ns.set("Action", Value(action));
    m->ns.set("BooleanOptionalAction",
              Value(libraryClass(in, "argparse.BooleanOptionalAction", {action})));
    m->ns.set("SUPPRESS", in.str(kSuppress));
    m->ns.set("OPTIONAL", in.str("?"));
    m->ns.set("ZERO_OR_MORE", in.str("*"));
    m->ns.set("ONE_OR_MORE", in.str("+"));
    m->ns.set("ArgumentTypeError", Value(libraryClass(in, "argparse.ArgumentTypeError",
                                                      {in.externalClass("builtins.Exception")})));
    m->ns.set("ArgumentError", Value(libraryClass(in, "argparse.ArgumentError",
                                                  {in.externalClass("builtins.Exception")})));
  }
};

} // namespace

std::unique_ptr<Overlay> makeArgparseOverlay() {
  return std::make_unique<ArgparseOverlay>();
}

} // namespace pallas::eval
