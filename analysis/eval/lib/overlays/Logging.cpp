// Overlay: logging. Kernels are often switched by it (`if
// log.isEnabledFor(logging.DEBUG): plgpu.print_layout(...)`), so the levels
// are computed as CPython's logging computes them:
//   - one Logger per name (`getLogger(name)`; None or "root" is the root
//     logger), its level NOTSET until `setLevel`, the root's WARNING;
//   - a logger's effective level is the first level set along its dotted
//     ancestors, else the root's;
//   - `isEnabledFor(level)` is `level >= effective level`, unless
//     `logging.disable(n)` covers it;
//   - `basicConfig(level=...)` sets the root's level only while the root has
//     no handler (`force=True` always); `logging.info(...)` and the other
//     module-level functions give the root a handler first, as CPython does;
//   - a level is an int or a level name ("DEBUG").
// What a configuration file decides (`logging.config.dictConfig`,
// `fileConfig`) is not known: every level is unknown after it.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr int64_t kNotSet = 0, kDebug = 10, kInfo = 20, kWarning = 30, kError = 40, kCritical = 50;

const std::pair<const char*, int64_t> kLevelNames[] = {
    {"CRITICAL", kCritical}, {"FATAL", kCritical}, {"ERROR", kError}, {"WARNING", kWarning},
    {"WARN", kWarning},      {"INFO", kInfo},      {"DEBUG", kDebug}, {"NOTSET", kNotSet}};

ClassObj* loggerClass(Interpreter& in) {
  return in.externalClass("logging.Logger");
}

// The state the module keeps: its loggers by name, whether the root has a
// handler, what logging.disable covers, and whether a configuration file
// took over. An instance on the heap, so entry points' changes are
// forgotten like every other write.
InstanceObj* manager(Interpreter& in) {
  ModuleObj* m = in.externalModule("logging");
  if (const Value* v = m->ns.find("_pallas_manager"))
    if (auto* inst = llvm::dyn_cast_or_null<InstanceObj>(v->single()))
      return inst;
  auto* inst = instance(in, in.externalClass("logging.Manager"));
  put(in, inst, "disable", in.integer(0));
  in.heap().willWrite(m);
  m->ns.set("_pallas_manager", Value(inst));
  return inst;
}

// A level argument: an int, or a registered level name; nullopt otherwise.
std::optional<int64_t> levelOf(const Value* v) {
  if (std::optional<int64_t> i = intOf(v))
    return i;
  if (const std::string* s = strOf(v))
    for (const auto& [name, level] : kLevelNames)
      if (*s == name)
        return level;
  return std::nullopt;
}

InstanceObj* loggerNamed(Interpreter& in, const std::string& name) {
  InstanceObj* mgr = manager(in);
  std::string key = "logger:" + name;
  if (auto* found = llvm::dyn_cast_or_null<InstanceObj>(attr(mgr, key).single()))
    return found;
  auto* logger = instance(in, loggerClass(in));
  put(in, logger, "name", in.str(name));
  put(in, logger, "level", in.integer(name == "root" ? kWarning : kNotSet));
  put(in, logger, "disabled", in.boolean(false));
  put(in, logger, "propagate", in.boolean(true));
  put(in, mgr, key, Value(logger));
  return logger;
}

// getLogger(name=None): one object per name; None, "" and "root" are the root.
Value getLogger(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* name = arg(a, 0, "name");
  if (!name || isNone(name))
    return Value(loggerNamed(in, "root"), site);
  const std::string* s = strOf(name);
  if (!s)
    return in.unknown("logging.getLogger() of a name not known", site);
  return Value(loggerNamed(in, s->empty() ? "root" : *s), site);
}

// The first level set along the logger's dotted ancestors, else the root's;
// nullopt when one on the way is not known.
std::optional<int64_t> effectiveLevel(Interpreter& in, InstanceObj* logger) {
  InstanceObj* mgr = manager(in);
  if (attr(mgr, "configured_by_file").single())
    return std::nullopt;
  const std::string* name = strOf(logger->attrs.find("name"));
  if (!name)
    return std::nullopt;
  for (std::string n = *name;;) {
    InstanceObj* l = n == "root" ? loggerNamed(in, "root") : loggerNamed(in, n);
    std::optional<int64_t> level = levelOf(l->attrs.find("level"));
    if (!level)
      return std::nullopt;
    if (*level != kNotSet || n == "root")
      return level;
    size_t dot = n.rfind('.');
    n = dot == std::string::npos ? "root" : n.substr(0, dot);
  }
}

Value isEnabledFor(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* logger = selfOf(a);
  std::optional<int64_t> level = levelOf(arg(a, 1, "level"));
  std::optional<int64_t> disabled = levelOf(manager(in)->attrs.find("disable"));
  if (!logger || !level || !disabled)
    return in.unknown("whether the logger is enabled for a level not known", site);
  if (*disabled >= *level)
    return in.boolean(false, site);
  std::optional<int64_t> effective = effectiveLevel(in, logger);
  if (!effective)
    return in.unknown("the level of logger " + describe(Value(logger)), site);
  return in.boolean(*level >= *effective, site);
}

Value getEffectiveLevel(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* logger = selfOf(a);
  std::optional<int64_t> level = logger ? effectiveLevel(in, logger) : std::nullopt;
  return level ? in.integer(*level, site) : in.unknown("the effective logging level", site);
}

Value setLevel(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* logger = selfOf(a)) {
    std::optional<int64_t> level = levelOf(arg(a, 1, "level"));
    put(in, logger, "level",
        level ? in.integer(*level, site) : in.unknown("a logging level", site));
  }
  return in.none(site);
}

Value getChild(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* logger = selfOf(a);
  const std::string* name = logger ? strOf(logger->attrs.find("name")) : nullptr;
  const std::string* suffix = strOf(arg(a, 1, "suffix"));
  if (!name || !suffix)
    return in.unknown("a child logger", site);
  return Value(loggerNamed(in, *name == "root" ? *suffix : *name + "." + *suffix), site);
}

// basicConfig(**kwargs): sets the root's level only while it has no handler.
Value basicConfig(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* mgr = manager(in);
  InstanceObj* root = loggerNamed(in, "root");
  const Value* force = a.keyword("force");
  std::optional<bool> forced = force ? in.truth(*force, site) : std::optional<bool>(false);
  bool handled = in.truth(attr(mgr, "root_handled"), site) == true;
  if (forced == false && handled)
    return in.none(site);
  if (a.moreKeywords || !forced) {
    put(in, root, "level", in.unknown("the root logger's level (basicConfig)", site));
  } else if (const Value* level = a.keyword("level")) {
    std::optional<int64_t> l = levelOf(level);
    put(in, root, "level", l ? in.integer(*l, site) : in.unknown("a logging level", site));
  }
  put(in, mgr, "root_handled", in.boolean(true, site));
  return in.none(site);
}

// logging.info(...) and the other module-level functions: the root gets a
// handler first when it has none (basicConfig()), so a later basicConfig
// changes nothing.
Value moduleLog(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  put(in, manager(in), "root_handled", in.boolean(true, site));
  return in.none(site);
}

Value disable(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* level = arg(a, 0, "level");
  std::optional<int64_t> l = level ? levelOf(level) : std::optional<int64_t>(kCritical);
  put(in, manager(in), "disable",
      l ? in.integer(*l, site) : in.unknown("the level logging.disable covers", site));
  return in.none(site);
}

Value fromFile(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  put(in, manager(in), "configured_by_file", in.boolean(true, site));
  return in.none(site);
}

Value getLevelName(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0, "level");
  if (auto i = intOf(v)) {
    for (const auto& [name, level] : kLevelNames)
      if (level == *i && std::string_view(name) != "FATAL" && std::string_view(name) != "WARN")
        return in.str(name, site);
    return in.str("Level " + std::to_string(*i), site);
  }
  if (auto l = levelOf(v))
    return in.integer(*l, site);
  return in.unknown("logging.getLevelName()", site);
}

class LoggingOverlay final : public Overlay {
public:
  const char* name() const override { return "logging"; }
  void install(Interpreter& in) override {
    ClassObj* logger = loggerClass(in);
    method(in, logger, "isEnabledFor", isEnabledFor);
    method(in, logger, "getEffectiveLevel", getEffectiveLevel);
    method(in, logger, "setLevel", setLevel);
    method(in, logger, "getChild", getChild);
    for (const char* n : {"debug", "info", "warning", "warn", "error", "exception", "critical",
                          "fatal", "log", "addHandler", "removeHandler", "addFilter"})
      method(in, logger, n, returnNone);
    in.defineNative("logging.getLogger", getLogger);
    in.defineNative("logging.basicConfig", basicConfig);
    in.defineNative("logging.disable", disable);
    in.defineNative("logging.getLevelName", getLevelName);
    in.defineNative("logging.config.dictConfig", fromFile);
    in.defineNative("logging.config.fileConfig", fromFile);
    for (const char* n :
         {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})
      in.defineNative(std::string("logging.") + n, moduleLog);
    for (const auto& [name, level] : kLevelNames)
      moduleAttr(in, "logging", name, in.integer(level));
    moduleAttr(in, "logging", "Logger", Value(logger));
  }
};

} // namespace

std::unique_ptr<Overlay> makeLoggingOverlay() {
  return std::make_unique<LoggingOverlay>();
}

} // namespace pallas::eval
