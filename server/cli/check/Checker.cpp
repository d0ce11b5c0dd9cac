#include "Checker.h"

#include "FileWalker.h"
#include "NotebookFiles.h"
#include "Relevance.h"
#include "WorkGroups.h"
#include "config/SkippedFile.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/support/AnalysisBudget.h"
#include "pallas/support/FileReading.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace fs = std::filesystem;

namespace pallas::check {

void parallelFor(size_t count, unsigned jobs, const std::function<void(size_t)>& fn) {
  if (jobs == 0)
    jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, count));
  if (jobs <= 1) {
    for (size_t i = 0; i < count; ++i)
      fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  std::vector<std::thread> threads;
  threads.reserve(jobs);
  for (unsigned t = 0; t < jobs; ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < count;) {
        try {
          fn(i);
        } catch (...) {
          std::lock_guard lock(failureMutex);
          if (!failure)
            failure = std::current_exception();
        }
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  if (failure)
    std::rethrow_exception(failure);
}

namespace {

// The texts the run read and their line indexes; shared with the Report's
// column lookup, so it outlives runCheck.
struct Sources {
  std::mutex mutex;
  std::map<std::string, std::string> texts;
  std::map<std::string, std::unique_ptr<LineIndex>> lines;
  // Files that may choose the paths of a launching file's launches
  // (interpretCallers): open while it is analysed. Set before collect runs.
  std::map<std::string, std::vector<std::string>> callers;

  const LineIndex* index(const std::string& path) {
    std::lock_guard lock(mutex);
    auto it = lines.find(path);
    if (it != lines.end())
      return it->second.get();
    auto text = texts.find(path);
    if (text == texts.end()) {
      // A related location in a file the run did not read (outside the
      // checked paths): read it once for columns and suppressions.
      std::optional<std::string> read = support::readSourceFile(path);
      if (!read)
        return nullptr;
      text = texts.emplace(path, std::move(*read)).first;
    }
    return lines.emplace(path, std::make_unique<LineIndex>(text->second)).first->second.get();
  }
  std::string_view text(const std::string& path) {
    index(path);
    std::lock_guard lock(mutex);
    auto it = texts.find(path);
    return it == texts.end() ? std::string_view() : std::string_view(it->second);
  }
};

// Only regular files of bounded size (a FIFO blocked the run forever; a
// link to /dev/zero read gigabytes); anything else is skipped and reported.
// A Jupyter notebook is checked as the module of its Python code cells; one
// that is not (another language, not nbformat JSON) has nothing to check, and
// `error` then holds a note while the text is empty.
// Nothing one file holds stops the run: whatever goes wrong reading it is
// reported with its name, and the other files are checked.
std::optional<std::string> readFile(const fs::path& path, std::string& error) {
  std::string why;
  std::optional<std::string> text = support::readSourceFile(path.string(), &why);
  if (!text)
    error = path.string() + ": skipped: " + why;
  else if (notebook::isNotebookPath(path.string())) {
    try {
      text = notebook::moduleOfIpynb(*text, &why);
    } catch (const std::exception& e) {
      text.reset();
      why = e.what();
    }
    if (!text) {
      error = path.string() + ": not checked: " + why;
      text = std::string();
    }
  }
  return text;
}

// The same finding can come from several documents (a helper reached from
// kernels in two files); report it once.
void dedupe(std::vector<analysis::Finding>& findings) {
  sortFindings(findings);
  auto same = [](const analysis::Finding& a, const analysis::Finding& b) {
    return std::tie(a.code, a.location.path, a.location.range, a.message, a.executionPath) ==
           std::tie(b.code, b.location.path, b.location.range, b.message, b.executionPath);
  };
  findings.erase(std::unique(findings.begin(), findings.end(), same), findings.end());
}

// Analyse `documents` on up to `jobs` workers, each with a Project of its own
// (its own MLIR context and lock, so the workers never wait on each other).
// A kernel's helpers in other files are read by its worker's Project on
// demand, whichever worker the helper file itself went to; a finding located
// in such a file gets that file's fixes from the same Project.
std::vector<analysis::Finding> collect(const analysis::ProjectOptions& projectOptions,
                                       const std::vector<std::string>& documents,
                                       const std::set<std::string>& runFiles, Sources& sources,
                                       unsigned jobs, std::vector<std::string>& errors,
                                       std::vector<std::string>& notes,
                                       std::vector<analysis::LaunchPaths>* launches = nullptr) {
  if (jobs == 0)
    jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<size_t> sizes;
  sizes.reserve(documents.size());
  {
    std::lock_guard lock(sources.mutex); // not text(): no line index needed here
    for (const std::string& d : documents) {
      auto it = sources.texts.find(d);
      sizes.push_back(it == sources.texts.end() ? 0 : it->second.size());
    }
  }
  std::vector<std::vector<std::string>> groups = workGroups(documents, sizes, jobs);
  jobs = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(jobs, groups.size())));
  std::vector<std::vector<analysis::Finding>> perWorker(jobs);
  std::vector<std::vector<std::string>> failuresPerWorker(jobs);
  std::vector<std::vector<analysis::LaunchPaths>> launchesPerWorker(jobs);
  std::atomic<size_t> next{0};
  parallelFor(jobs, jobs, [&](size_t worker) {
    analysis::Project project(projectOptions);
    auto& found = perWorker[worker];
    auto& failures = failuresPerWorker[worker];
    auto open = [&](const std::string& path) {
      // One file the analysis cannot handle must not stop the others: it is
      // reported (exit 2) and left out.
      try {
        if (!project.hasDocument(path)) {
          std::string_view text = sources.text(path);
          // Over the analysis budget: never parsed (the group loop reports it).
          if (support::overAnalysisBudget(text))
            return false;
          analysis::UpdateStats stats = project.setDocument(path, std::string(text));
          if (stats.tooDeepAt)
            failures.push_back("note: " + analysis::tooDeepText(path, *stats.tooDeepAt));
          for (const auto& f : stats.unanalysed)
            failures.push_back("note: " + analysis::unanalysedText(path, f));
        }
        return true;
      } catch (const std::exception& e) {
        failures.push_back(path + ": internal error in the analysis: " + e.what());
        return false;
      }
    };
    for (size_t g; (g = next.fetch_add(1)) < groups.size();) {
      std::vector<std::string> opened;
      for (const std::string& path : groups[g]) {
        if (auto tooLarge = tooLargeToAnalyse(path, sources.text(path)))
          found.push_back(std::move(*tooLarge)); // PLS010, instead of gigabytes
        else if (open(path))
          opened.push_back(path);
      }
      for (const std::string& path : opened) {
        // Its callers in files that launch nothing: in the workspace while it
        // is analysed, so an `interpret=` parameter takes what they pass.
        std::vector<std::string> callers;
        if (auto it = sources.callers.find(path); it != sources.callers.end())
          for (const std::string& c : it->second)
            if (!project.hasDocument(c) && open(c))
              callers.push_back(c);
        try {
          // Skip: each file is analysed once here, so the keys that let an
          // editor reuse a launch's results across edits are never read.
          std::vector<analysis::Finding> list =
              *project.findingsUnlessStopped(path, nullptr, analysis::Project::LaunchResults::Skip);
          // The same fixes the editor offers (FindingsPipeline), per file the
          // findings are in: --fix applies them.
          std::set<std::string> files;
          for (const analysis::Finding& f : list)
            files.insert(f.location.path);
          for (const std::string& file : files)
            if (file == path || (runFiles.count(file) && open(file)))
              analysis::attachFixes(project, file, list);
          for (auto& f : list)
            found.push_back(std::move(f));
          if (launches)
            for (auto& l : project.launchPaths(path))
              launchesPerWorker[worker].push_back(std::move(l));
        } catch (const std::exception& e) {
          failures.push_back(path + ": internal error in the analysis: " + e.what());
        }
        // Its findings are out: let go of its tree and module (a run over a
        // large repository held every analysed file until the end).
        project.releaseDocument(path);
        for (const std::string& c : callers)
          project.releaseDocument(c);
      }
    }
  });
  for (auto& list : failuresPerWorker) // once each, also when collect runs again after --fix
    for (std::string& f : list) {
      bool note = f.rfind("note: ", 0) == 0;
      std::vector<std::string>& into = note ? notes : errors;
      if (note)
        f.erase(0, 6);
      if (std::find(into.begin(), into.end(), f) == into.end())
        into.push_back(std::move(f));
    }
  std::vector<analysis::Finding> all;
  for (auto& list : perWorker)
    for (auto& f : list)
      all.push_back(std::move(f));
  dedupe(all);
  if (launches) {
    for (auto& list : launchesPerWorker)
      for (auto& l : list)
        launches->push_back(std::move(l));
    std::sort(launches->begin(), launches->end(), [](const auto& a, const auto& b) {
      return std::tie(a.launch.path, a.launch.range.start.line, a.launch.range.start.column) <
             std::tie(b.launch.path, b.launch.range.start.line, b.launch.range.start.column);
    });
  }
  return all;
}

std::vector<analysis::Finding> filter(std::vector<analysis::Finding> findings,
                                      const ConfigResolver& configs, const CheckOptions& options,
                                      Sources& sources) {
  // Group by the file the finding is in: its config and its comments decide.
  std::map<std::string, std::vector<analysis::Finding>> byFile;
  for (analysis::Finding& f : findings)
    byFile[f.location.path].push_back(std::move(f));
  std::vector<analysis::Finding> kept;
  for (auto& [path, list] : byFile) {
    auto config = configs.forPath(path);
    for (auto& f :
         applyPolicy(std::move(list), *config, options.selection, sources.text(path), path))
      kept.push_back(std::move(f));
  }
  sortFindings(kept);
  return kept;
}

ConfigResolver makeResolver(const CheckOptions& options, const fs::path& root) {
  switch (options.configMode) {
  case CheckOptions::ConfigMode::File:
    return ConfigResolver::fixed(normalisePath(options.configFile));
  case CheckOptions::ConfigMode::None:
    return ConfigResolver::none(root);
  case CheckOptions::ConfigMode::Discover:
    break;
  }
  return ConfigResolver::discover();
}

} // namespace

CheckResult runCheck(const CheckOptions& options) {
  CheckResult result;
  std::vector<fs::path> absolute;
  absolute.reserve(options.paths.size());
  for (const fs::path& p : options.paths)
    absolute.push_back(normalisePath(p));
  fs::path root = commonRoot(absolute);
  ConfigResolver configs = makeResolver(options, root);

  WalkResult walk = discoverFiles(options.paths, configs);
  result.errors = std::move(walk.errors);

  auto sources = std::make_shared<Sources>();
  analysis::ProjectOptions projectOptions;
  projectOptions.workspaceRoots = {root.string()};
  projectOptions.gpuComputeCapability = options.gpuComputeCapability;
  projectOptions.gpuSharedMemoryPerBlockOptin = options.gpuSharedMemoryPerBlockOptin;
  projectOptions.assumePath = options.assumePath;
  // One Project per worker already uses the cores (collect).
  projectOptions.lowerOnCallingThread =
      (options.jobs == 0 ? std::thread::hardware_concurrency() : options.jobs) > 1;
  if (options.knowledgeFor) {
    std::string python = options.python;
    bool mayRun = !python.empty();
    if (auto config = configs.forPath(root, /*isDirectory=*/true);
        python.empty() && config && config->python) {
      fs::path p(*config->python);
      // A path with a folder is relative to the pyproject.toml; a bare name
      // ("python3") is looked up on PATH by the extractor.
      python = p.is_relative() && p.has_parent_path() ? (config->root / p).string() : p.string();
      // The repository chose it: read, not run, unless the user says so.
      mayRun = options.trustConfigPython;
    }
    projectOptions.knowledgePath = options.knowledgeFor(python, mayRun, root.string());
  }

  // Read every file (the texts also serve the report's columns and the
  // suppression comments), then analyse the ones that can hold findings.
  std::vector<std::optional<std::string>> texts(walk.files.size());
  std::vector<std::string> readErrors(walk.files.size());
  parallelFor(walk.files.size(), options.jobs,
              [&](size_t i) { texts[i] = readFile(walk.files[i], readErrors[i]); });
  std::vector<std::string> documents;
  for (size_t i = 0; i < walk.files.size(); ++i) {
    if (!texts[i]) {
      result.errors.push_back(readErrors[i]);
      continue;
    }
    if (!readErrors[i].empty()) // a notebook with nothing to check
      result.notes.push_back(readErrors[i]);
    documents.push_back(walk.files[i].string());
    sources->texts.emplace(documents.back(), std::move(*texts[i]));
  }
  std::vector<fs::path> paths;
  std::vector<std::string_view> views;
  for (const std::string& d : documents) {
    paths.emplace_back(d);
    views.emplace_back(sources->texts.at(d));
  }
  std::vector<bool> relevant = relevantFiles(paths, views, root);
  RunImports imports(paths, views, root);
  std::vector<bool> launching = launchingFiles(imports); // findings start at launches
  const std::set<std::string> runFiles(documents.begin(), documents.end());
  std::vector<std::vector<size_t>> callers = interpretCallers(imports, launching);
  std::set<size_t> callerFiles;
  for (size_t i = 0; i < documents.size(); ++i)
    if (relevant[i] && launching[i])
      for (size_t c : callers[i]) {
        sources->callers[documents[i]].push_back(documents[c]);
        callerFiles.insert(c);
      }
  std::vector<std::string> analysed;
  for (size_t i = 0; i < documents.size(); ++i)
    if (relevant[i] && launching[i])
      analysed.push_back(documents[i]);
    else if (!notebook::isNotebookPath(documents[i]) && !callerFiles.count(i))
      // Not analysed: its text is read again only if a finding lands in it
      // (Sources::index). A run over a large repository held every file.
      sources->texts.erase(documents[i]);

  std::vector<analysis::Finding> findings =
      filter(collect(projectOptions, analysed, runFiles, *sources, options.jobs, result.errors,
                     result.notes, options.launchMatrix ? &result.report.launches : nullptr),
             configs, options, *sources);

  if (options.fix) {
    FixOutcome outcome = applyFixes(findings, sources->texts, options.fixOptions);
    for (std::string& m : outcome.messages)
      result.notes.push_back(std::move(m));
    for (std::string& e : outcome.errors)
      result.errors.push_back(std::move(e));
    result.report.fixesApplied = outcome.findingsFixed;
    result.fixedFiles = outcome.changedFiles;
    if (!outcome.changedFiles.empty()) {
      // Re-analyse with the new texts, so what is reported is what is left
      // (the positions of the remaining findings moved with the edits).
      for (const std::string& path : outcome.changedFiles) {
        std::string error;
        std::optional<std::string> text = readFile(path, error);
        if (!text) {
          result.errors.push_back(error);
          continue;
        }
        std::lock_guard lock(sources->mutex);
        sources->texts[path] = std::move(*text);
        sources->lines.erase(path);
      }
      findings = filter(collect(projectOptions, analysed, runFiles, *sources, options.jobs,
                                result.errors, result.notes),
                        configs, options, *sources);
    }
  }

  for (const analysis::Finding& f : findings) {
    // With --unsafe-fixes, unsafe fixes are what --fix would apply.
    if (applicableFix(f, FixOptions{options.fixOptions.unsafe}))
      ++result.report.fixableSafe;
    else if (applicableFix(f, FixOptions{true}))
      ++result.report.fixableUnsafe;
  }
  result.report.findings = std::move(findings);
  result.report.files = documents.size();
  result.report.jaxVersion = analysis::knowledgeJaxVersion(projectOptions.knowledgePath);
  std::error_code ec;
  result.report.base = fs::current_path(ec);
  result.report.lines = [sources](const std::string& path) { return sources->index(path); };
  return result;
}

} // namespace pallas::check
