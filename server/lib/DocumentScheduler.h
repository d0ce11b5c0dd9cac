// Runs each document's analysis off the ordered queue, clangd's TUScheduler
// in small: one worker per document, latest wins, stale work is stopped.
//
//  - schedule(doc, task, delay): the task runs on the pool `delay` after the
//    last schedule of that document (a burst of edits gives one run). A newer
//    schedule replaces a task still waiting and asks the running one to stop
//    (its StopToken), so no run works for a version that is already old.
//  - Runs of one document never overlap and start in schedule order: a
//    document has at most one worker, which takes the newest task when the
//    previous one returns. Different documents run in parallel on the pool.
//  - With Delay::OnlyWhileBusy the delay applies only while the document
//    has a task waiting or running (a burst of typing); an edit to an idle
//    document runs at once, so a lone keystroke does not wait the debounce.
//  - interrupt(doc) asks the running task to stop without scheduling
//    anything: didChange calls it before applying an edit, so the edit does
//    not wait for an analysis of the version it replaces.
//  - forget(doc) (didClose) stops the running task, drops the waiting one,
//    and lets go of everything kept for the document once its worker ends.
//
// Tasks check their token between units of work (a pass, a launch, the
// conversion to JSON) and return early when it says stop; the scheduler
// never interrupts them.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace pallas::server {

// Cooperative cancellation of one run: set by a newer schedule of the same
// document, by forget() and by stopAll().
class StopToken {
public:
  StopToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  bool stopRequested() const { return flag_->load(std::memory_order_acquire); }
  void requestStop() const { flag_->store(true, std::memory_order_release); }

private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

class DocumentScheduler {
public:
  using Task = std::function<void(const StopToken& stop)>;
  // When `delay` applies: always (the trailing edge of every burst), or only
  // while the document is busy (a lone schedule runs at once).
  enum class Delay { Always, OnlyWhileBusy };

  // Timers run on `timers` (the I/O thread); tasks on `pool`.
  DocumentScheduler(boost::asio::io_context& timers, boost::asio::thread_pool& pool);
  ~DocumentScheduler();
  DocumentScheduler(const DocumentScheduler&) = delete;
  DocumentScheduler& operator=(const DocumentScheduler&) = delete;

  // Returns the schedule's generation (increasing per document).
  uint64_t schedule(const std::string& doc, Task task,
                    std::chrono::milliseconds delay = std::chrono::milliseconds(0),
                    Delay when = Delay::Always);
  // Asks the document's running task (if any) to stop; what waits stays.
  void interrupt(const std::string& doc);
  // Stops and drops the document's work and state (didClose).
  void forget(const std::string& doc);
  // Stops everything and refuses new work (shutdown, end of the session).
  void stopAll();

  // For tests and benchmarks: documents with any state kept (a waiting or
  // running task), and how many runs were started and stopped early.
  size_t trackedDocuments() const;
  // Whether the document has a task waiting or running (a reader waiting for
  // its result knows one will come).
  bool busy(const std::string& doc) const;
  uint64_t runsStarted() const;

private:
  struct State; // shared with queued handlers, which may outlive `this`
  static void fire(const std::shared_ptr<State>& state, const std::string& doc, uint64_t gen);
  static void run(const std::shared_ptr<State>& state, const std::string& doc);

  std::shared_ptr<State> state_;
};

} // namespace pallas::server
