// Small queries of the interpreter's state that overlays ask.
#include "Activation.h"

namespace pallas::eval {

std::unique_ptr<Overlay> makeBuiltinsOverlay();
std::unique_ptr<Overlay> makeFunctoolsOverlay();
std::unique_ptr<Overlay> makeDataclassesOverlay();
std::unique_ptr<Overlay> makeCollectionsOverlay();
std::unique_ptr<Overlay> makeEnumOverlay();
std::unique_ptr<Overlay> makeAbcOverlay();
std::unique_ptr<Overlay> makeTypingOverlay();
std::unique_ptr<Overlay> makeTypesOverlay();
std::unique_ptr<Overlay> makeOperatorOverlay();
std::unique_ptr<Overlay> makeContextlibOverlay();
std::unique_ptr<Overlay> makeItertoolsOverlay();
std::unique_ptr<Overlay> makeMathOverlay();
std::unique_ptr<Overlay> makeLoggingOverlay();
std::unique_ptr<Overlay> makeConfigparserOverlay();
std::unique_ptr<Overlay> makeJsonOverlay();
std::unique_ptr<Overlay> makeEnvironmentOverlay();
std::unique_ptr<Overlay> makeArgparseOverlay();
std::unique_ptr<Overlay> makeCopyOverlay();
std::unique_ptr<Overlay> makeInspectOverlay();
std::unique_ptr<Overlay> makeUnittestOverlay();
std::unique_ptr<Overlay> makeModulesOverlay();

void installStandardOverlays(Interpreter& in) {
  in.addOverlay(makeBuiltinsOverlay());
  in.addOverlay(makeFunctoolsOverlay());
  in.addOverlay(makeDataclassesOverlay());
  in.addOverlay(makeCollectionsOverlay());
  in.addOverlay(makeEnumOverlay());
  in.addOverlay(makeAbcOverlay());
  in.addOverlay(makeTypingOverlay());
  in.addOverlay(makeTypesOverlay());
  in.addOverlay(makeOperatorOverlay());
  in.addOverlay(makeContextlibOverlay());
  in.addOverlay(makeItertoolsOverlay());
  in.addOverlay(makeMathOverlay());
  in.addOverlay(makeLoggingOverlay());
  in.addOverlay(makeConfigparserOverlay());
  in.addOverlay(makeJsonOverlay());
  in.addOverlay(makeEnvironmentOverlay());
  in.addOverlay(makeArgparseOverlay());
  in.addOverlay(makeCopyOverlay());
  in.addOverlay(makeInspectOverlay());
  in.addOverlay(makeUnittestOverlay());
  in.addOverlay(makeModulesOverlay());
}

void Interpreter::raise(const Value& exception) {
  pendingRaise_ = true;
  pendingException_ = exception;
  ++mayRaise_;
}

std::optional<Value> Interpreter::takeRaised() {
  if (!pendingRaise_)
    return std::nullopt;
  pendingRaise_ = false;
  return pendingException_;
}

std::string Interpreter::currentDocument() const {
  return current_ ? current_->doc : main_;
}

FunctionObj* Interpreter::currentFunction() const {
  return current_ ? current_->fn : nullptr;
}

FrameObj* Interpreter::currentFrame() const {
  return current_ ? current_->frame : nullptr;
}

std::optional<bool> Interpreter::hasAttr(const Value& obj, llvm::StringRef name) {
  std::optional<bool> result;
  for (const Alt& alt : obj) {
    std::optional<bool> h;
    Object* o = alt.obj;
    switch (o->kind) {
    case Kind::Instance: {
      auto* inst = llvm::cast<InstanceObj>(o);
      if (inst->attrs.find(name) || lookupInMro(inst->cls, name))
        h = true;
      else if (lookupInMro(inst->cls, "__getattr__") || hasLibraryBase(inst->cls))
        h = std::nullopt;
      else
        h = false;
      break;
    }
    case Kind::Class: {
      auto* c = llvm::cast<ClassObj>(o);
      if (lookupInMro(c, name))
        h = true;
      else if (hasLibraryBase(c) || !c->external.empty())
        h = std::nullopt;
      else
        h = false;
      break;
    }
    case Kind::Module: {
      auto* m = llvm::cast<ModuleObj>(o);
      if (m->ns.find(name))
        h = true;
      else if (m->path.empty() || m->ns.find("__getattr__"))
        h = std::nullopt;
      else
        h = false;
      break;
    }
    case Kind::Function:
      h = llvm::cast<FunctionObj>(o)->attrs.find(name) != nullptr;
      break;
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::Str:
      h = native(classOf(o)->external + "." + name.str()) != nullptr;
      if (!*h)
        h = std::nullopt;
      break;
    default:
      h = std::nullopt;
    }
    if (!h)
      return std::nullopt;
    if (result && *result != *h)
      return std::nullopt;
    result = h;
  }
  return result;
}

} // namespace pallas::eval
