// LSP 3.17 notebook document sync (notebookDocument/didOpen, didChange,
// didSave, didClose). A notebook's Python code cells are analysed as one
// module, the way the kernel runs them (a kernel defined in one cell and
// launched in another is one program): the module is opened in the server as
// a text document under the notebook's own URI, and this feature translates
// at the edges:
//  - diagnostics published for the notebook are split over its cells (line
//    numbers in messages too: "line 24" becomes "cell 3, line 2");
//  - requests about a cell (hover, code actions, code lenses, pull
//    diagnostics) are asked of the module at the cell's offset, and their
//    answers mapped back to the cell (workspace edits to the cells they edit).
// The cells' own texts are kept in a DocumentStore of their own (incremental
// edits, UTF-16 positions), keyed by cell URI.
#include "LspServer.h"
#include "NotebookFiles.h"
#include "NotebookModule.h"
#include "pallas/support/Uri.h"

#include <map>
#include <mutex>
#include <set>

namespace pallas::server {
namespace {

using protocol::ErrorCode;
using protocol::RpcError;

struct Cell {
  std::string uri;
  bool code = true;
  std::string language = "python";
};

struct Notebook {
  std::string uri;
  std::string path;
  int64_t version = 0;
  std::vector<Cell> cells;              // every cell, in notebook order
  std::vector<size_t> moduleCells;      // indices into `cells` of those in the module
  notebook::Module module;              // moduleCells' texts joined
  std::set<std::string> publishedCells; // cells that got diagnostics last time
};

class NotebookSync {
public:
  explicit NotebookSync(LspServer& server) : server_(server) {}

  void install() {
    server_.addCapabilities(
        {{"notebookDocumentSync",
          {{"notebookSelector",
            json::array({{{"notebook", "*"},
                          // Markdown cells too, only so that cells are
                          // numbered as Jupyter numbers them.
                          {"cells",
                           json::array({{{"language", "python"}}, {{"language", "markdown"}}})}}})},
           {"save", false}}}});
    server_.addNotification("notebookDocument/didOpen", [this](const json& p) { didOpen(p); });
    server_.addNotification("notebookDocument/didChange", [this](const json& p) { didChange(p); });
    server_.addNotification("notebookDocument/didSave", [](const json&) {});
    server_.addNotification("notebookDocument/didClose", [this](const json& p) { didClose(p); });
    server_.addPublishInterceptor(
        [this](const std::string& path, const std::function<const json&()>& diagnostics,
               std::optional<int64_t>) { return publish(path, diagnostics); });
    server_.addRequestMiddleware(
        [this](const std::string& method, const json& params, const RequestContext&,
               const auto& next) { return translate(method, params, next); });
  }

private:
  // ---- sync ----
  static bool isCodeCell(const json& cell) {
    return cell.is_object() && cell.value("kind", 2) == 2;
  }

  void openCellText(const json& item) {
    const std::string uri = protocol::requireField(item, "uri", json::value_t::string);
    cells_.open(OpenDocument{uri, uri, item.value("version", int64_t{0}), item.value("text", "")});
    languages_[uri] = item.value("languageId", "python");
  }

  // Recomputes the module from the cells' texts.
  void rebuild(Notebook& nb) {
    nb.moduleCells.clear();
    std::vector<std::string> texts;
    for (size_t i = 0; i < nb.cells.size(); ++i) {
      Cell& c = nb.cells[i];
      c.language = languages_.count(c.uri) ? languages_[c.uri] : c.language;
      if (!c.code || c.language != "python")
        continue;
      auto doc = cells_.get(c.uri);
      nb.moduleCells.push_back(i);
      texts.push_back(doc ? doc->text : std::string());
    }
    nb.module = notebook::concatenate(texts);
  }

  static std::vector<Cell> cellsOf(const json& list) {
    std::vector<Cell> out;
    if (!list.is_array())
      return out;
    for (const json& c : list)
      if (c.is_object() && c.contains("document") && c["document"].is_string())
        out.push_back({c["document"].get<std::string>(), isCodeCell(c), "python"});
    return out;
  }

  void didOpen(const json& params) {
    const json& nbJson = protocol::requireField(params, "notebookDocument", json::value_t::object);
    Notebook nb;
    nb.uri = protocol::requireField(nbJson, "uri", json::value_t::string).get<std::string>();
    nb.path = support::uriToPath(nb.uri);
    nb.version = nbJson.value("version", int64_t{0});
    std::string text;
    std::string uri = nb.uri;
    int64_t version = nb.version;
    {
      std::lock_guard lock(mutex_);
      for (const json& item : params.value("cellTextDocuments", json::array()))
        openCellText(item);
      nb.cells = cellsOf(nbJson.value("cells", json::array()));
      rebuild(nb);
      text = nb.module.text;
      byPath_[nb.path] = nb.uri;
      notebooks_[nb.uri] = std::move(nb);
    }
    server_.didOpen(
        {{"textDocument",
          {{"uri", uri}, {"languageId", "python"}, {"version", version}, {"text", text}}}});
  }

  void didChange(const json& params) {
    const json& id = protocol::requireField(params, "notebookDocument", json::value_t::object);
    std::string uri = protocol::requireField(id, "uri", json::value_t::string);
    const json& change = protocol::requireField(params, "change", json::value_t::object);
    std::string text;
    int64_t version;
    {
      std::lock_guard lock(mutex_);
      auto it = notebooks_.find(uri);
      if (it == notebooks_.end()) {
        server_.log().warn("notebookDocument/didChange for a notebook that is not open: " + uri);
        return;
      }
      Notebook& nb = it->second;
      nb.version = id.value("version", nb.version + 1);
      const json cells = change.value("cells", json::object());
      if (cells.contains("structure") && cells["structure"].is_object()) {
        const json& st = cells["structure"];
        for (const json& item : st.value("didOpen", json::array()))
          openCellText(item);
        if (st.contains("array") && st["array"].is_object()) {
          const json& a = st["array"];
          size_t start = std::min<size_t>(a.value("start", 0), nb.cells.size());
          size_t count = std::min<size_t>(a.value("deleteCount", 0), nb.cells.size() - start);
          nb.cells.erase(nb.cells.begin() + static_cast<long>(start),
                         nb.cells.begin() + static_cast<long>(start + count));
          std::vector<Cell> added = cellsOf(a.value("cells", json::array()));
          nb.cells.insert(nb.cells.begin() + static_cast<long>(start), added.begin(), added.end());
        }
        for (const json& closed : st.value("didClose", json::array()))
          if (closed.is_object() && closed.contains("uri") && closed["uri"].is_string()) {
            cells_.close(closed["uri"].get<std::string>());
            languages_.erase(closed["uri"].get<std::string>());
          }
      }
      for (const json& data : cells.value("data", json::array()))
        if (data.is_object() && data.contains("document"))
          for (Cell& c : nb.cells)
            if (json(c.uri) == data["document"])
              c.code = isCodeCell(data);
      for (const json& tc : cells.value("textContent", json::array())) {
        if (!tc.is_object() || !tc.contains("document") || !tc["document"].is_object())
          continue;
        std::string cellUri = tc["document"].value("uri", "");
        auto result = cells_.change(cellUri, tc["document"].value("version", int64_t{-1}),
                                    tc.value("changes", json::array()), server_.client().encoding);
        if (!result.error.empty())
          server_.log().error("notebook cell " + cellUri + ": " + result.error);
      }
      rebuild(nb);
      text = nb.module.text;
      version = nb.version;
    }
    server_.didChange({{"textDocument", {{"uri", uri}, {"version", version}}},
                       {"contentChanges", json::array({{{"text", text}}})}});
  }

  void didClose(const json& params) {
    const json& id = protocol::requireField(params, "notebookDocument", json::value_t::object);
    std::string uri = protocol::requireField(id, "uri", json::value_t::string);
    {
      std::lock_guard lock(mutex_);
      if (!notebooks_.count(uri))
        return;
    }
    // Publishes an empty list for the notebook, which clears every cell.
    server_.didClose({{"textDocument", {{"uri", uri}}}});
    std::lock_guard lock(mutex_);
    auto it = notebooks_.find(uri);
    if (it == notebooks_.end())
      return;
    for (const Cell& c : it->second.cells) {
      cells_.close(c.uri);
      languages_.erase(c.uri);
    }
    byPath_.erase(it->second.path);
    notebooks_.erase(it);
  }

  // ---- positions ----
  // The module line of a cell's line, and back.
  struct Where {
    const Notebook* nb = nullptr;
    size_t span = 0; // index into nb->module.cells / nb->moduleCells
  };

  std::optional<Where> cellWhere(const std::string& cellUri) const {
    for (const auto& [uri, nb] : notebooks_)
      for (size_t s = 0; s < nb.moduleCells.size(); ++s)
        if (nb.cells[nb.moduleCells[s]].uri == cellUri)
          return Where{&nb, s};
    return std::nullopt;
  }

  static uint32_t offsetOf(const Where& w) { return w.nb->module.cells[w.span].firstLine; }

  // Line numbers as clients send them (unsigned JSON numbers: handlers check).
  static json lineNumber(int64_t line) { return static_cast<uint64_t>(std::max<int64_t>(0, line)); }

  // Shifts every line of a range by `delta`.
  static void shift(json& range, int64_t delta) {
    for (const char* end : {"start", "end"})
      if (range.contains(end) && range[end].is_object() && range[end].contains("line") &&
          range[end]["line"].is_number_integer())
        range[end]["line"] = lineNumber(range[end]["line"].get<int64_t>() + delta);
  }

  // A module range as (cell span, range within the cell); ranges that run past
  // their cell end at its last line.
  static std::optional<std::pair<size_t, json>> toCell(const Notebook& nb, const json& range) {
    if (!range.is_object() || !range.contains("start") || !range["start"].is_object())
      return std::nullopt;
    auto line = range["start"].value("line", int64_t{-1});
    if (line < 0)
      return std::nullopt;
    auto place = nb.module.locate(static_cast<uint32_t>(line));
    if (!place)
      return std::nullopt;
    const notebook::CellSpan& span = nb.module.cells[place->cell];
    json r = range;
    shift(r, -static_cast<int64_t>(span.firstLine));
    int64_t last = span.lineCount ? span.lineCount - 1 : 0;
    if (r["end"].value("line", int64_t{0}) > last)
      r["end"] = {{"line", lineNumber(last)}, {"character", uint64_t{1} << 20}};
    return std::make_pair(place->cell, r);
  }

  std::string cellUri(const Notebook& nb, size_t span) const {
    return nb.cells[nb.moduleCells[span]].uri;
  }

  // "line 24" (and "nb.ipynb:24") in a message names a module line: say
  // which cell (numbered as Jupyter does) and line.
  std::string retellLines(const Notebook& nb, const std::string& message) const {
    return notebook::retellLines(message, [&](uint32_t line) -> std::optional<notebook::CellLine> {
      auto place = nb.module.locate(line);
      if (!place)
        return std::nullopt;
      return notebook::CellLine{nb.moduleCells[place->cell] + 1, place->line};
    });
  }

  bool sameDocument(const Notebook& nb, const json& uri) const {
    return uri.is_string() &&
           (uri == nb.uri || support::uriToPath(uri.get<std::string>()) == nb.path);
  }

  // A Location (uri + range) in the module becomes one in a cell.
  void mapLocation(const Notebook& nb, json& loc) const {
    if (!loc.is_object() || !loc.contains("uri") || !sameDocument(nb, loc["uri"]) ||
        !loc.contains("range"))
      return;
    if (auto cell = toCell(nb, loc["range"])) {
      loc["uri"] = cellUri(nb, cell->first);
      loc["range"] = cell->second;
    }
  }

  // ---- diagnostics ----
  // The module's diagnostics per code cell (every code cell has an entry).
  std::map<std::string, json> splitByCell(const Notebook& nb, const json& diagnostics) const {
    std::map<std::string, json> byCell;
    for (size_t s = 0; s < nb.moduleCells.size(); ++s)
      byCell[cellUri(nb, s)] = json::array();
    if (!diagnostics.is_array())
      return byCell;
    for (const json& d : diagnostics) {
      auto cell = toCell(nb, d.value("range", json()));
      if (!cell)
        continue;
      json mapped = d;
      mapped["range"] = cell->second;
      if (mapped.contains("message") && mapped["message"].is_string())
        mapped["message"] = retellLines(nb, mapped["message"].get<std::string>());
      // Runs execute files: no run fix in a notebook's data either.
      if (mapped.contains("data") && mapped["data"].is_object() &&
          mapped["data"].contains("fixes") && mapped["data"]["fixes"].is_array()) {
        json fixes = json::array();
        for (json& fix : mapped["data"]["fixes"])
          if (!(fix.is_object() && fix.contains("command") && fix["command"].is_object() &&
                fix["command"].value("command", "") == "pallas.run"))
            fixes.push_back(std::move(fix));
        mapped["data"]["fixes"] = std::move(fixes);
      }
      // The call chain is data, not message text: its module lines too.
      if (mapped.contains("data") && mapped["data"].is_object() &&
          mapped["data"].contains("callChain") && mapped["data"]["callChain"].is_array())
        for (json& hop : mapped["data"]["callChain"])
          if (hop.is_string())
            hop = retellLines(nb, hop.get<std::string>());
      if (mapped.contains("relatedInformation") && mapped["relatedInformation"].is_array())
        for (json& r : mapped["relatedInformation"]) {
          if (r.contains("location"))
            mapLocation(nb, r["location"]);
          if (r.contains("message") && r["message"].is_string())
            r["message"] = retellLines(nb, r["message"].get<std::string>());
        }
      byCell[cellUri(nb, cell->first)].push_back(std::move(mapped));
    }
    return byCell;
  }

  // workspace/diagnostic: a notebook's report becomes one report per cell.
  json splitWorkspaceReport(json result) const {
    if (!result.is_object() || !result.contains("items") || !result["items"].is_array())
      return result;
    json items = json::array();
    for (json& report : result["items"]) {
      const Notebook* nb = nullptr;
      if (report.is_object() && report.contains("uri"))
        for (const auto& [uri, candidate] : notebooks_)
          if (sameDocument(candidate, report["uri"]))
            nb = &candidate;
      if (!nb) {
        items.push_back(std::move(report));
        continue;
      }
      for (auto& [uri, list] : splitByCell(*nb, report.value("items", json::array())))
        items.push_back(
            {{"kind", "full"}, {"uri", uri}, {"version", nullptr}, {"items", std::move(list)}});
    }
    result["items"] = std::move(items);
    return result;
  }

  bool publish(const std::string& path, const std::function<const json&()>& diagnostics) {
    std::map<std::string, json> byCell;
    std::set<std::string> previous;
    {
      std::lock_guard lock(mutex_);
      auto p = byPath_.find(path);
      if (p == byPath_.end())
        return false;
      Notebook& nb = notebooks_[p->second];
      byCell = splitByCell(nb, diagnostics()); // built only for a notebook
      previous = std::move(nb.publishedCells);
      nb.publishedCells.clear();
      for (const auto& [uri, list] : byCell)
        if (!list.empty())
          nb.publishedCells.insert(uri);
    }
    for (const std::string& uri : previous)
      byCell.try_emplace(uri, json::array()); // a cell deleted since: clear it
    for (auto& [uri, list] : byCell)
      server_.endpoint().notify("textDocument/publishDiagnostics",
                                {{"uri", uri}, {"diagnostics", std::move(list)}});
    return true;
  }

  // ---- requests about a cell ----
  json translate(const std::string& method, const json& params,
                 const std::function<json(const json&)>& next) {
    if (method == "workspace/diagnostic") {
      json result = next(params);
      std::lock_guard lock(mutex_);
      return splitWorkspaceReport(std::move(result));
    }
    if (method.rfind("textDocument/", 0) != 0 || !params.is_object() ||
        !params.contains("textDocument") || !params["textDocument"].is_object() ||
        !params["textDocument"].contains("uri") || !params["textDocument"]["uri"].is_string())
      return next(params);
    std::string uri = params["textDocument"]["uri"].get<std::string>();
    json asked;
    std::string notebookUri;
    int64_t offset = 0;
    bool isCell = true;
    {
      std::lock_guard lock(mutex_);
      auto where = cellWhere(uri);
      if (!where) {
        if (uri.rfind("vscode-notebook-cell:", 0) == 0)
          throw RpcError(ErrorCode::InvalidParams, "not a code cell of an open notebook: " + uri);
        isCell = false;
      }
    }
    // Not under mutex_: a request may wait for its document's analysis,
    // whose publication takes mutex_ (publish below).
    if (!isCell)
      return next(params);
    {
      std::lock_guard lock(mutex_);
      auto where = cellWhere(uri);
      if (!where)
        return json(nullptr); // the notebook closed meanwhile
      notebookUri = where->nb->uri;
      offset = offsetOf(*where);
      asked = params;
      asked["textDocument"]["uri"] = notebookUri;
      if (asked.contains("position") && asked["position"].is_object() &&
          asked["position"].contains("line"))
        asked["position"]["line"] = lineNumber(asked["position"]["line"].get<int64_t>() + offset);
      if (asked.contains("range"))
        shift(asked["range"], offset);
      if (asked.contains("context") && asked["context"].is_object() &&
          asked["context"].contains("diagnostics") && asked["context"]["diagnostics"].is_array())
        for (json& d : asked["context"]["diagnostics"])
          if (d.is_object() && d.contains("range"))
            shift(d["range"], offset);
    }
    json result = next(asked);
    std::lock_guard lock(mutex_);
    auto nb = notebooks_.find(notebookUri);
    auto where = cellWhere(uri);
    if (nb == notebooks_.end() || !where)
      return json(nullptr); // closed while the request ran
    // Runs execute files: a notebook's module is not one on disk (no run
    // lenses, and no "Run ... now" code actions, which failed there).
    if ((method == "textDocument/codeLens" || method == "textDocument/codeAction") &&
        result.is_array()) {
      json kept = json::array();
      for (json& item : result)
        if (!(item.contains("command") && item["command"].is_object() &&
              item["command"].value("command", "") == "pallas.run"))
          kept.push_back(std::move(item));
      result = std::move(kept);
    }
    mapResult(nb->second, where->span, result);
    return result;
  }

  // Answers are about the module: ranges without a URI are the asked cell's
  // (dropped from lists when they fall in another cell), locations and edits
  // with the notebook's URI go to the cells they point into.
  void mapResult(const Notebook& nb, size_t span, json& v) const {
    if (v.is_array()) {
      json kept = json::array();
      for (json& item : v) {
        if (item.is_object() && item.contains("range") && !item.contains("uri") &&
            item["range"].is_object()) {
          auto cell = toCell(nb, item["range"]);
          if (!cell || cell->first != span)
            continue;
        }
        mapResult(nb, span, item);
        kept.push_back(std::move(item));
      }
      v = std::move(kept);
      return;
    }
    if (!v.is_object())
      return;
    if (v.contains("changes") && v["changes"].is_object()) {
      json changes = json::object();
      for (auto& [uri, edits] : v["changes"].items()) {
        if (!sameDocument(nb, json(uri))) {
          changes[uri] = edits;
          continue;
        }
        for (const json& e : edits)
          if (auto cell = toCell(nb, e.value("range", json()))) {
            json mapped = e;
            mapped["range"] = cell->second;
            changes[cellUri(nb, cell->first)].push_back(std::move(mapped));
          }
      }
      v["changes"] = std::move(changes);
    }
    if (v.contains("range") && v["range"].is_object()) {
      if (v.contains("uri"))
        mapLocation(nb, v);
      else if (auto cell = toCell(nb, v["range"]))
        v["range"] = cell->second;
    }
    if (v.contains("message") && v["message"].is_string())
      v["message"] = retellLines(nb, v["message"].get<std::string>());
    for (const char* key : {"diagnostics", "items", "edit", "relatedInformation"})
      if (v.contains(key))
        mapResult(nb, span, v[key]);
    if (v.contains("location"))
      mapLocation(nb, v["location"]);
  }

  LspServer& server_;
  std::mutex mutex_;
  std::map<std::string, Notebook> notebooks_; // by notebook URI
  std::map<std::string, std::string> byPath_; // notebook path -> URI
  DocumentStore cells_;                       // cell texts, by cell URI
  std::map<std::string, std::string> languages_;
};

ServerFeatureRegistration notebookSync{{"notebook-sync", [](LspServer& server) {
                                          auto sync = std::make_shared<NotebookSync>(server);
                                          sync->install();
                                          // The server's handlers hold the feature.
                                          server.onInitialized([sync] {});
                                        }}};

} // namespace
} // namespace pallas::server
