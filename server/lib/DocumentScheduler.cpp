#include "DocumentScheduler.h"

#include <boost/asio/post.hpp>

namespace pallas::server {

namespace asio = boost::asio;

struct DocumentScheduler::State {
  State(asio::io_context& io, asio::thread_pool& pool) : io(io), pool(pool) {}
  asio::io_context& io;
  asio::thread_pool& pool;

  struct Worker {
    uint64_t generation = 0; // of the newest schedule
    Task waiting;            // the newest task, not started yet
    bool ready = false;      // its delay has passed
    bool running = false;    // a pool thread is in run() for this document
    StopToken current;       // of the task running (or the last one)
  };
  mutable std::mutex mutex;
  std::map<std::string, Worker> workers;
  // One counter for all documents: a timer of a forgotten document can
  // never match the generation of the same document opened again.
  uint64_t nextGeneration = 0;
  uint64_t runsStarted = 0;
  bool stopped = false;
};

DocumentScheduler::DocumentScheduler(asio::io_context& timers, asio::thread_pool& pool)
    : state_(std::make_shared<State>(timers, pool)) {}

DocumentScheduler::~DocumentScheduler() {
  stopAll();
}

uint64_t DocumentScheduler::schedule(const std::string& doc, Task task,
                                     std::chrono::milliseconds delay, Delay when) {
  uint64_t gen;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->stopped)
      return 0;
    auto [it, idle] = state_->workers.try_emplace(doc);
    // An idle document (its entry is erased once its worker has nothing
    // left) is not in a burst: no reason to wait.
    if (idle && when == Delay::OnlyWhileBusy)
      delay = std::chrono::milliseconds(0);
    State::Worker& w = it->second;
    gen = w.generation = ++state_->nextGeneration;
    w.waiting = std::move(task); // a task still waiting is replaced: latest wins
    w.ready = false;
    if (w.running)
      w.current.requestStop(); // the run in progress is for an older version
  }
  // Timers live on the I/O thread only (an Asio timer is not thread-safe).
  // Each schedule gets its own; an older one that fires finds a newer
  // generation and does nothing, so none needs cancelling from here.
  asio::post(state_->io, [state = state_, doc, gen, delay] {
    if (delay.count() <= 0) {
      fire(state, doc, gen);
      return;
    }
    auto timer = std::make_shared<asio::steady_timer>(state->io, delay);
    timer->async_wait([state, doc, gen, timer](boost::system::error_code ec) {
      if (!ec)
        fire(state, doc, gen);
    });
  });
  return gen;
}

void DocumentScheduler::fire(const std::shared_ptr<State>& state, const std::string& doc,
                             uint64_t gen) {
  std::lock_guard lock(state->mutex);
  auto it = state->workers.find(doc);
  if (state->stopped || it == state->workers.end() || it->second.generation != gen)
    return; // replaced by a newer schedule, or forgotten
  State::Worker& w = it->second;
  w.ready = true;
  if (w.running)
    return; // the document's worker takes it when its current task returns
  w.running = true;
  asio::post(state->pool, [state, doc] { run(state, doc); });
}

void DocumentScheduler::run(const std::shared_ptr<State>& state, const std::string& doc) {
  for (;;) {
    Task task;
    StopToken token;
    {
      std::lock_guard lock(state->mutex);
      auto it = state->workers.find(doc);
      if (it == state->workers.end())
        return;
      State::Worker& w = it->second;
      if (state->stopped || !w.ready || !w.waiting) {
        w.running = false;
        if (!w.waiting)
          state->workers.erase(it); // idle: keep nothing for the document
        return;
      }
      task = std::move(w.waiting);
      w.waiting = nullptr;
      w.ready = false;
      w.current = token;
      ++state->runsStarted;
    }
    try {
      task(token);
    } catch (...) { // NOLINT(bugprone-empty-catch)
      // A task reports its own failures; the worker must survive them.
    }
  }
}

void DocumentScheduler::interrupt(const std::string& doc) {
  std::lock_guard lock(state_->mutex);
  auto it = state_->workers.find(doc);
  if (it != state_->workers.end() && it->second.running)
    it->second.current.requestStop();
}

void DocumentScheduler::forget(const std::string& doc) {
  std::lock_guard lock(state_->mutex);
  auto it = state_->workers.find(doc);
  if (it == state_->workers.end())
    return;
  State::Worker& w = it->second;
  w.current.requestStop();
  if (w.running) {
    // Its worker erases the entry when the stopped task returns; until then
    // a new schedule of the document waits behind it (runs never overlap).
    w.waiting = nullptr;
    w.ready = false;
    w.generation = ++state_->nextGeneration;
    return;
  }
  state_->workers.erase(it);
}

void DocumentScheduler::stopAll() {
  std::lock_guard lock(state_->mutex);
  state_->stopped = true;
  for (auto it = state_->workers.begin(); it != state_->workers.end();) {
    it->second.current.requestStop();
    it->second.waiting = nullptr;
    if (it->second.running)
      ++it;
    else
      it = state_->workers.erase(it);
  }
}

size_t DocumentScheduler::trackedDocuments() const {
  std::lock_guard lock(state_->mutex);
  return state_->workers.size();
}

bool DocumentScheduler::busy(const std::string& doc) const {
  std::lock_guard lock(state_->mutex);
  auto it = state_->workers.find(doc);
  return !state_->stopped && it != state_->workers.end() &&
         (it->second.running || it->second.waiting);
}

uint64_t DocumentScheduler::runsStarted() const {
  std::lock_guard lock(state_->mutex);
  return state_->runsStarted;
}

} // namespace pallas::server
