// Overlay: unittest, absl.testing.absltest and absl.testing.parameterized.
// TestCase is a base class whose assert* methods return None, skipTest
// raises unittest.SkipTest (the rest of the test does not run), fail raises
// AssertionError. `TestCase("test_x")` remembers its method; `.debug()` runs
// setUp, that method and tearDown, letting what they raise through, and
// `.run()` does the same but catches it (unittest records a failure).
// assertRaises (called with a function, or as a context
// manager) catches the exceptions it names, subTest is a context that does
// nothing, enterContext / enter_context enter a context now. The
// evaluator's entry points (Modules.cpp runEntryPoints) run each test method
// after setUp; a method decorated by parameterized.parameters /
// named_parameters / product carries its parameter sets (the function
// attribute `__eval_parameter_sets__`: a list of (args tuple, kwargs dict))
// and runs once per set. unittest.skip/skipIf/skipUnless replace a test
// that is skipped by a function that raises SkipTest.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr const char* kParameterSets = "__eval_parameter_sets__";

ClassObj* testCase(Interpreter& in) {
  return in.externalClass("unittest.TestCase");
}
ClassObj* skipClass(Interpreter& in) {
  return in.externalClass("unittest.SkipTest");
}

Value returnFalse(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.boolean(false, site);
}
Value returnSelf(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return a.positional.empty() ? in.unknown("self", site) : a.positional[0];
}

Value skipTest(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* reason = strOf(arg(a, 1, "reason"));
  return raiseNew(in, skipClass(in), site, reason ? *reason : "");
}

Value pytestSkip(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const std::string* reason = strOf(arg(a, 0, "reason"));
  return raiseNew(in, static_cast<ClassObj*>(llvm::cast<BuiltinObj>(self)->data), site,
                  reason ? *reason : "");
}

Value fail(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* msg = strOf(arg(a, 1, "msg"));
  return raiseNew(in, in.externalClass("builtins.AssertionError"), site, msg ? *msg : "");
}

// assertX / failX that no method names: they check and return None.
Value testGetattr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* name = strOf(arg(a, 1));
  if (name && (name->rfind("assert", 0) == 0 || name->rfind("fail", 0) == 0))
    return Value(in.makeNative("unittest.TestCase." + *name, returnNone), site);
  return in.unknown("attribute `" + (name ? *name : std::string("?")) + "` of a TestCase", site);
}

// assertRaises(exc) as a context manager: it swallows what it expects.
Value raisesExit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  const Value* type = arg(a, 1);
  const Value* value = arg(a, 2);
  if (!self || !type || isNone(type))
    return in.boolean(false, site); // not raised: CPython fails the test
  std::optional<bool> m =
      in.exceptionMatches(value && !isNone(value) ? *value : *type, attr(self, "expected"), site);
  if (m == true)
    put(in, self, "exception", value ? *value : *type);
  return m ? in.boolean(*m, site) : in.unknown("whether assertRaises expects the exception", site);
}

Value assertRaises(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* expected = arg(a, 1, "expected_exception");
  if (!expected)
    return in.unknown("assertRaises()", site);
  bool regex = llvm::StringRef(llvm::cast<BuiltinObj>(self)->name).ends_with("Regex");
  size_t fnIndex = regex ? 3 : 2;
  if (a.positional.size() <= fnIndex) {
    InstanceObj* cm = instance(in, in.externalClass("unittest.case._AssertRaisesContext"));
    cm->attrs.set("expected", *expected);
    return Value(cm, site);
  }
  CallArgs call;
  call.positional.assign(a.positional.begin() + static_cast<long>(fnIndex) + 1, a.positional.end());
  call.keywords = a.keywords;
  in.call(a.positional[fnIndex], call, site);
  if (std::optional<Value> raised = in.takeRaised())
    if (in.exceptionMatches(*raised, *expected, site) == false)
      in.raise(*raised);
  return in.none(site);
}

Value subTest(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return Value(instance(in, in.externalClass("unittest.case._SubTest")), site);
}

Value enterContext(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* cm = arg(a, 1, "cm");
  if (!cm)
    return in.unknown("enter_context()", site);
  return in.call(in.getAttr(*cm, "__enter__", site), {}, site);
}

// TestCase.__init__(methodName="runTest").
Value testInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a)) {
    const Value* name = arg(a, 1, "methodName");
    put(in, self, "_testMethodName", name ? *name : in.str("runTest", site));
  }
  return in.none(site);
}

// setUp, the test method, tearDown, as unittest runs them. debug() lets what
// one raises through and stops there; run() catches it, and runs tearDown
// once setUp succeeded.
Value runTestSteps(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool catches) {
  if (a.positional.empty())
    return in.unknown("a test's run", site);
  const Value self = a.positional[0];
  const std::string* method = nullptr;
  Value methodName = in.getAttr(self, "_testMethodName", site);
  method = strOf(&methodName);
  if (!method)
    return in.unknown("the method this test runs", site);
  auto step = [&](const std::string& name) -> std::optional<Value> {
    in.call(in.getAttr(self, name, site), {}, site);
    return in.takeRaised();
  };
  if (std::optional<Value> raised = step("setUp")) {
    if (!catches)
      in.raise(*raised);
    return in.none(site);
  }
  std::optional<Value> failed = step(*method);
  if (failed && !catches) {
    in.raise(*failed); // debug(): tearDown does not run
    return in.none(site);
  }
  // run(): tearDown runs once setUp succeeded, whatever the test did.
  if (std::optional<Value> raised = step("tearDown"); raised && !catches)
    in.raise(*raised);
  return in.none(site);
}
Value testDebug(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return runTestSteps(in, a, site, false);
}
Value testRun(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return runTestSteps(in, a, site, true);
}

Value testId(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.unknown("the id of the running test", site);
}

// ---- skip decorators ---------------------------------------------------------------

Value skipped(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return raiseNew(in, skipClass(in), site, "skipped");
}
Value skipDecorator(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* target = arg(a, 0);
  if (target && llvm::isa_and_nonnull<ClassObj>(target->single()))
    return *target; // a skipped class: its tests are not followed apart
  return Value(in.makeNative("unittest.skip(...)", skipped), site);
}
Value identity(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* target = arg(a, 0);
  return target ? *target : in.unknown("a decorated test", site);
}

Value skip(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return Value(in.makeNative("unittest.skip.decorator", skipDecorator), site);
}
Value skipIf(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* cond = arg(a, 0, "condition");
  bool unless = llvm::StringRef(llvm::cast<BuiltinObj>(self)->name).ends_with("skipUnless");
  std::optional<bool> t = cond ? in.truth(*cond, site) : std::nullopt;
  if (t && *t != unless)
    return Value(in.makeNative("unittest.skip.decorator", skipDecorator), site);
  // Not skipped, or not known: the test may run.
  return Value(in.makeNative("unittest.skipIf.decorator", identity), site);
}

// ---- parameterized ---------------------------------------------------------------------

// One parameter set as (args, kwargs), or nullopt when its shape is not known.
std::optional<Value> parameterSet(Interpreter& in, const Value& testcase, bool named,
                                  mlir::Operation* site) {
  Object* o = testcase.single();
  if (!o)
    return std::nullopt;
  if (auto* d = llvm::dyn_cast<DictObj>(o)) {
    if (!d->exact)
      return std::nullopt;
    auto* kw = in.heap().make<DictObj>();
    for (const auto& [k, v] : d->items) {
      const std::string* s = strOf(&k);
      if (!s)
        return std::nullopt;
      if (named && *s == "testcase_name")
        continue;
      kw->items.push_back({k, v});
    }
    return in.tuple({in.tuple({}, site), Value(kw, site)}, site);
  }
  bool iterable = o->kind == Kind::Tuple || o->kind == Kind::List || o->kind == Kind::Set ||
                  o->kind == Kind::Range || o->kind == Kind::Generator;
  if (o->kind == Kind::Unknown || o->kind == Kind::External || o->kind == Kind::Instance)
    return std::nullopt;
  std::vector<Value> args;
  if (iterable) {
    Interpreter::Elements e = in.elements(testcase, site);
    if (!e.exact)
      return std::nullopt;
    args = e.items;
    if (named) {
      if (args.empty())
        return std::nullopt;
      args.erase(args.begin());
    }
  } else {
    if (named)
      return std::nullopt; // absl: a RuntimeError
    args = {testcase};
  }
  return in.tuple({in.tuple(args, site), Value(in.heap().make<DictObj>(), site)}, site);
}

// What the decorator's arguments give: the test cases (absl's
// _parameter_decorator: one argument that is not a tuple or a dict is the list).
std::optional<std::vector<Value>> testcases(Interpreter& in, const CallArgs& a,
                                            mlir::Operation* site) {
  if (a.morePositional)
    return std::nullopt;
  std::vector<Value> cases = a.positional;
  if (cases.size() == 1) {
    Object* o = cases[0].single();
    if (!o)
      return std::nullopt;
    if (o->kind != Kind::Tuple && o->kind != Kind::Dict) {
      Interpreter::Elements e = in.elements(cases[0], site);
      if (!e.exact)
        return std::nullopt;
      cases = e.items;
    }
  }
  return cases;
}

Value applyParameters(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                      const Object* self) {
  const Value* target = arg(a, 0);
  auto* sets = static_cast<ListObj*>(llvm::cast<BuiltinObj>(self)->data);
  if (!target)
    return in.unknown("a parameterized test", site);
  if (auto* fn = llvm::dyn_cast_or_null<FunctionObj>(target->single())) {
    in.heap().willWrite(fn);
    fn->attrs.set(kParameterSets, Value(sets, site));
  }
  return *target;
}

Value decoratorWith(Interpreter& in, std::optional<std::vector<Value>> sets,
                    mlir::Operation* site) {
  auto* l = in.heap().make<ListObj>();
  if (!sets) {
    l->exact = false;
  } else {
    l->elems = std::move(*sets);
  }
  return Value(in.makeNative("parameterized.decorator", applyParameters, l), site);
}

Value parametersFor(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool named) {
  std::optional<std::vector<Value>> cases = testcases(in, a, site);
  if (!cases)
    return decoratorWith(in, std::nullopt, site);
  std::vector<Value> sets;
  for (const Value& c : *cases) {
    std::optional<Value> s = parameterSet(in, c, named, site);
    if (!s)
      return decoratorWith(in, std::nullopt, site);
    sets.push_back(*s);
  }
  return decoratorWith(in, sets, site);
}

Value parameters(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return parametersFor(in, a, site, false);
}
Value namedParameters(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return parametersFor(in, a, site, true);
}

// product(*kwargs_seqs, **testgrid): every combination, as keyword arguments.
Value product(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.morePositional || a.moreKeywords)
    return decoratorWith(in, std::nullopt, site);
  // Each axis: a list of keyword dicts (as (name, value) pairs).
  using Kwargs = std::vector<std::pair<Value, Value>>;
  std::vector<std::vector<Kwargs>> axes;
  for (const Value& seq : a.positional) {
    Interpreter::Elements e = in.elements(seq, site);
    if (!e.exact)
      return decoratorWith(in, std::nullopt, site);
    std::vector<Kwargs> axis;
    for (const Value& d : e.items) {
      auto* dict = llvm::dyn_cast_or_null<DictObj>(d.single());
      if (!dict || !dict->exact)
        return decoratorWith(in, std::nullopt, site);
      axis.push_back(dict->items);
    }
    axes.push_back(axis);
  }
  for (const auto& [k, vs] : a.keywords) {
    Interpreter::Elements e = in.elements(vs, site);
    if (!e.exact)
      return decoratorWith(in, std::nullopt, site);
    std::vector<Kwargs> axis;
    axis.reserve(e.items.size());
    for (const Value& v : e.items)
      axis.push_back({{in.str(k, site), v}});
    axes.push_back(axis);
  }
  std::vector<Kwargs> combos{{}};
  for (const auto& axis : axes) {
    std::vector<Kwargs> next;
    for (const Kwargs& prefix : combos)
      for (const Kwargs& kw : axis) {
        next.push_back(prefix);
        next.back().insert(next.back().end(), kw.begin(), kw.end());
      }
    combos = std::move(next);
    if (combos.size() > 256)
      return decoratorWith(in, std::nullopt, site);
  }
  std::vector<Value> sets;
  for (const Kwargs& kw : combos) {
    auto* d = in.heap().make<DictObj>();
    d->items = kw;
    sets.push_back(in.tuple({in.tuple({}, site), Value(d, site)}, site));
  }
  return decoratorWith(in, sets, site);
}

class UnittestOverlay final : public Overlay {
public:
  const char* name() const override { return "unittest"; }
  void install(Interpreter& in) override {
    ClassObj* exception = in.externalClass("builtins.Exception");
    ClassObj* skipTestClass = libraryClass(in, "unittest.SkipTest", {exception});
    ClassObj* tc = testCase(in);
    method(in, tc, "__init__", testInit);
    for (const char* n : {"setUp", "tearDown", "setUpClass", "tearDownClass", "addCleanup",
                          "addClassCleanup", "doCleanups"})
      method(in, tc, n, returnNone);
    method(in, tc, "debug", testDebug);
    method(in, tc, "run", testRun);
    method(in, tc, "__call__", testRun);
    method(in, tc, "skipTest", skipTest);
    method(in, tc, "fail", fail);
    method(in, tc, "__getattr__", testGetattr);
    for (const char* n : {"assertRaises", "assertRaisesRegex", "assertWarns", "assertWarnsRegex"})
      method(in, tc, n, assertRaises);
    method(in, tc, "subTest", subTest);
    method(in, tc, "enterContext", enterContext);
    method(in, tc, "enter_context", enterContext);
    method(in, tc, "id", testId);
    ClassObj* raisesCtx = in.externalClass("unittest.case._AssertRaisesContext");
    method(in, raisesCtx, "__enter__", returnSelf);
    method(in, raisesCtx, "__exit__", raisesExit);
    ClassObj* sub = in.externalClass("unittest.case._SubTest");
    method(in, sub, "__enter__", returnNone);
    method(in, sub, "__exit__", returnFalse);

    ModuleObj* unittest = in.externalModule("unittest");
    unittest->ns.set("TestCase", Value(tc));
    unittest->ns.set("SkipTest", Value(skipTestClass));
    // pytest.skip / fail / exit raise (the rest of the test does not run).
    ClassObj* skipped =
        libraryClass(in, "_pytest.outcomes.Skipped", {in.externalClass("builtins.BaseException")});
    ClassObj* failed =
        libraryClass(in, "_pytest.outcomes.Failed", {in.externalClass("builtins.BaseException")});
    in.defineNative("pytest.skip", pytestSkip, skipped);
    in.defineNative("pytest.fail", pytestSkip, failed);
    in.defineNative("pytest.exit", pytestSkip, failed);
    in.defineNative("unittest.skip", skip);
    in.defineNative("unittest.skipIf", skipIf);
    in.defineNative("unittest.skipUnless", skipIf);
    in.defineNative("unittest.expectedFailure", identity);

    ClassObj* absl = libraryClass(in, "absl.testing.absltest.TestCase", {tc});
    ClassObj* param = libraryClass(in, "absl.testing.parameterized.TestCase", {absl});
    // JAX's own tests derive from jtu.JaxTestCase, a parameterized.TestCase.
    libraryClass(in, "jax._src.test_util.JaxTestCase", {param});
    for (const char* m : {"absl.testing.absltest", "absl.testing.parameterized"}) {
      std::string q = m;
      in.defineNative(q + ".skip", skip);
      in.defineNative(q + ".skipIf", skipIf);
      in.defineNative(q + ".skipUnless", skipIf);
    }
    in.defineNative("absl.testing.parameterized.parameters", parameters);
    in.defineNative("absl.testing.parameterized.named_parameters", namedParameters);
    in.defineNative("absl.testing.parameterized.product", product);
  }
};

} // namespace

std::unique_ptr<Overlay> makeUnittestOverlay() {
  return std::make_unique<UnittestOverlay>();
}

} // namespace pallas::eval
