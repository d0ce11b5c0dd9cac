// The one way pallas-lsp gets a knowledge table in process: the table at a
// configured path (the user's JAX, written by the server or `check` from
// KnowledgeBase::forEnvironment) when it loads, else the table bundled with
// pallas-lsp. Tables are immutable, so each is loaded once per process and
// shared by the passes, the hover and the path matrix; a failed load is
// remembered so a bad path is not re-read on every keystroke.
#pragma once

#include "pallas/knowledge/KnowledgeBase.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace pallas::knowledge {

class KnowledgeService {
public:
  // The process-wide service.
  static KnowledgeService& shared();

  // The configured table ("" = none) when it loads, else the bundled one;
  // null only when neither loads.
  std::shared_ptr<const KnowledgeBase> table(const std::string& configuredPath = "");
  // Its JAX version; "unknown" when no table loads.
  std::string jaxVersion(const std::string& configuredPath = "");

private:
  std::shared_ptr<const KnowledgeBase> load(const std::string& path);

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const KnowledgeBase>> tables_; // "" = bundled
};

} // namespace pallas::knowledge
