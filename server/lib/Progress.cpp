// Work-done progress ($/progress): LspServer::beginProgress creates one with
// window/workDoneProgress/create and Progress queues what is reported before
// the client accepted it.
#include "LspServer.h"

namespace pallas::server {

void Progress::send(json value) {
  std::lock_guard lock(mutex_);
  if (state_ == State::Dropped || state_ == State::Ended)
    return;
  if (value["kind"] == "end")
    state_ = state_ == State::Ready ? State::Ended : state_;
  if (state_ == State::Pending) {
    queued_.push_back(std::move(value));
    return;
  }
  endpoint_->notify("$/progress", json{{"token", wireToken_}, {"value", std::move(value)}});
}

void Progress::report(const std::string& message, std::optional<unsigned> percentage) {
  json v{{"kind", "report"}, {"message", message}};
  if (percentage)
    v["percentage"] = std::min(*percentage, 100u);
  send(std::move(v));
}

void Progress::end(const std::string& message) {
  json v{{"kind", "end"}};
  if (!message.empty())
    v["message"] = message;
  send(std::move(v));
}

std::shared_ptr<Progress> LspServer::beginProgress(const std::string& title, bool cancellable,
                                                   const json& workDoneToken) {
  auto progress = std::make_shared<Progress>();
  progress->endpoint_ = endpoint_;
  if (workDoneToken.is_string() || workDoneToken.is_number_integer()) {
    // The client made the token and shows the progress its own way (one
    // notification with its cancel button): no window/workDoneProgress/create.
    progress->token_ =
        workDoneToken.is_string() ? workDoneToken.get<std::string>() : workDoneToken.dump();
    progress->wireToken_ = workDoneToken;
    progress->state_ = Progress::State::Ready;
    // Its cancel (window/workDoneProgress/cancel) stops the work and the
    // request still answers: a cancelled run keeps what it printed.
    {
      std::lock_guard lock(progressMutex_);
      progress_[progress->token_] = progress;
    }
    progress->send(json{{"kind", "begin"}, {"title", title}, {"cancellable", cancellable}});
    return progress;
  }
  progress->token_ = "pallas-lsp-" + std::to_string(nextProgress_++);
  progress->wireToken_ = progress->token_;
  progress->queued_.push_back(
      json{{"kind", "begin"}, {"title", title}, {"cancellable", cancellable}});
  if (!client_.workDoneProgress) {
    progress->state_ = Progress::State::Dropped;
    return progress;
  }
  {
    std::lock_guard lock(progressMutex_);
    progress_[progress->token_] = progress;
  }
  // The pending call holds the Progress: reports queued by a caller that has
  // already dropped it are still delivered once the client accepts.
  endpoint_->call("window/workDoneProgress/create", json{{"token", progress->token_}},
                  [p = progress](bool ok, const json&) {
                    std::lock_guard lock(p->mutex_);
                    if (!ok) {
                      p->state_ = Progress::State::Dropped;
                      return;
                    }
                    bool ended = false;
                    for (auto& v : p->queued_) {
                      ended = ended || v["kind"] == "end";
                      p->endpoint_->notify("$/progress",
                                           json{{"token", p->wireToken_}, {"value", std::move(v)}});
                    }
                    p->queued_.clear();
                    p->state_ = ended ? Progress::State::Ended : Progress::State::Ready;
                  });
  return progress;
}

} // namespace pallas::server
