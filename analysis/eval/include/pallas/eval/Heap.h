// The objects of one evaluation, and the journal that makes branches
// precise (docs/analysis.md §8, "The solver").
//
// Where the evaluator cannot tell which way a branch goes (an `if` on an
// unknown condition, a loop that may run again, an exception handler), it
// runs each way from the same state and joins what they did. The journal
// makes that exact for every kind of state at once, a frame's locals, a
// module's globals, an instance's attributes, a list's elements, JAX's
// process-wide interpreter mode: the first write to an object inside a
// branch saves the object's contents; at the end of the branch its contents
// are kept aside and the saved ones restored; where the branches meet, each
// object written on either side gets the join of both sides (an object a
// side did not write keeps its saved contents on that side).
#pragma once

#include "pallas/eval/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace pallas::eval {

// The contents of a mutable object, as the journal saves them.
struct Contents {
  AttrMap attrs;                              // Instance, Class ns, Module ns, Frame, Function
  std::vector<Value> elems;                   // List, Set
  std::vector<std::pair<Value, Value>> items; // Dict
  bool exact = true;                          // List, Set, Dict
  Value others;                               // Dict
};

class Heap {
public:
  Heap();
  ~Heap();
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  template <typename T, typename... Args> T* make(Args&&... args) {
    auto owned = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = owned.get();
    raw->epoch = ++clock_;
    objects_.push_back(std::move(owned));
    return raw;
  }

  // Shared immutable objects: equal values are the same object.
  Object* none() { return none_; }
  Object* ellipsis() { return ellipsis_; }
  Object* boolean(bool v) { return v ? true_ : false_; }
  Object* integer(int64_t v);
  Object* floating(double v);
  Object* string(const std::string& v, bool bytes = false);
  Object* unknown(const std::string& why, mlir::Operation* at = nullptr);

  // Join with widening: past Value::kMaxAlternatives alternatives, the
  // value is Unknown ("one of many values").
  Value join(const Value& a, const Value& b);

  // ---- the journal --------------------------------------------------------
  // Call before writing a mutable object's contents.
  void willWrite(Object* obj);
  bool inBranch() const { return !levels_.empty(); }
  // How many branch points the running code is inside (a generator's yield
  // is certain when it happens at the depth its consumer started at).
  size_t branchDepth() const { return levels_.size(); }

  struct Side {
    // obj -> its contents at the end of the side (saved: at the start).
    std::vector<std::pair<Object*, std::pair<std::shared_ptr<Contents>, std::shared_ptr<Contents>>>>
        written;
    bool live = true; // the side reaches the join (not ended by return/raise/break)
  };
  void beginSide();
  Side endSide(bool live);
  // Joins the sides of one branch point into the current state. `frame`: the
  // frame running the branch; a side that does not reach the join
  // contributes nothing to its locals (its other writes still may happen).
  void merge(std::vector<Side>& sides, Object* frame);

  // An object that holds what branches established (the platform a test
  // narrowed to), not program state: a side that does not reach the join
  // contributes nothing to it, as to the running frame's locals.
  void markFacts(Object* obj) { facts_.insert(obj); }

  static std::shared_ptr<Contents> contentsOf(Object* obj);
  static void setContents(Object* obj, const Contents& c);

  uint64_t now() const { return clock_; }

private:
  Contents joinContents(Object* obj, const std::vector<const Contents*>& sides);

  struct Level {
    uint64_t start;
    llvm::DenseMap<Object*, std::shared_ptr<Contents>> saved;
    std::vector<Object*> order;
  };
  std::vector<Level> levels_;
  llvm::DenseSet<Object*> facts_;
  std::deque<std::unique_ptr<Object>> objects_;
  Object* none_;
  Object* ellipsis_;
  Object* true_;
  Object* false_;
  std::unordered_map<int64_t, Object*> ints_;
  std::map<double, Object*> floats_;
  std::unordered_map<std::string, Object*> strings_, bytes_;
  uint64_t clock_ = 0;
};

// Python equality of two immutable values as far as known: true, false, or
// nullopt (not known: unknowns, mutable objects compared by identity are
// known equal only when identical).
std::optional<bool> sameValue(const Object* a, const Object* b);

} // namespace pallas::eval
