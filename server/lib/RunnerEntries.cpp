#include "RunnerEntries.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace pallas::server::runner {
namespace {

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The identifier that starts at `i` (a run of word characters), or empty.
std::string_view wordAt(std::string_view text, size_t i) {
  size_t end = i;
  while (end < text.size() && isWordChar(text[end]))
    ++end;
  return text.substr(i, end - i);
}

size_t skipSpace(std::string_view text, size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  return i;
}

// Calls `visit(word, end)` for each identifier (run of word characters) of
// `text` from `from` on, until it returns true; whether one did.
template <typename Visit> bool forEachWord(std::string_view text, size_t from, Visit visit) {
  for (size_t i = from; i < text.size();) {
    if (!isWordChar(text[i])) {
      ++i;
      continue;
    }
    std::string_view word = wordAt(text, i);
    i += word.size();
    if (visit(word, i))
      return true;
  }
  return false;
}

// Whether the text names a kernel launch the runner forces into a mode
// (gpu/README.md): `pallas_call`, `core_map`, or `kernel` as an attribute of
// `pl`, `plgpu` or `mgpu`, as a call or a decorator (`@pl.kernel(...)`,
// `@functools.partial(pl.pallas_call, ...)`). Scanned by hand: libstdc++'s
// std::regex with \b took a fifth of an edit's CPU on a 10k-line file.
bool mentionsLaunch(std::string_view text) {
  return forEachWord(text, 0, [&](std::string_view word, size_t end) {
    if (word == "pallas_call" || word == "core_map")
      return true;
    if (word != "pl" && word != "plgpu" && word != "mgpu")
      return false;
    size_t dot = skipSpace(text, end);
    return dot < text.size() && text[dot] == '.' &&
           wordAt(text, skipSpace(text, dot + 1)) == "kernel";
  });
}

// The name `def NAME(` (after `async` if any) defines when the line starts
// with it; empty when it does not.
std::string definedName(std::string_view line) {
  size_t i = 0;
  if (wordAt(line, 0) == "async") {
    i = skipSpace(line, 5);
    if (i == 5)
      return {};
  }
  if (wordAt(line, i) != "def")
    return {};
  size_t nameAt = skipSpace(line, i + 3);
  if (nameAt == i + 3 || nameAt >= line.size() ||
      std::isdigit(static_cast<unsigned char>(line[nameAt])))
    return {};
  std::string_view name = wordAt(line, nameAt);
  size_t paren = skipSpace(line, nameAt + name.size());
  if (name.empty() || paren >= line.size() || line[paren] != '(')
    return {};
  return std::string(name);
}

constexpr std::string_view kMarker = "pallas-lsp: entry";

struct Function {
  std::string name;
  unsigned defLine = 0, firstLine = 0, endLine = 0; // [firstLine, endLine)
  std::string params;
  bool marked = false;
  std::string body;
};

std::vector<std::string> splitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos)
      nl = text.size();
    std::string line(text.substr(start, nl - start));
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(std::move(line));
    start = nl + 1;
  }
  return lines;
}

bool isTopLevelCode(const std::string& line) {
  return !line.empty() && !std::isspace(static_cast<unsigned char>(line[0])) && line[0] != '#';
}

// The parameter text between the def's parentheses (may span lines).
std::string parameters(const std::vector<std::string>& lines, unsigned defLine, unsigned* last) {
  std::string out;
  int depth = 0;
  bool started = false;
  for (unsigned i = defLine; i < lines.size(); ++i) {
    for (char c : lines[i]) {
      if (c == '(') {
        if (depth++ == 0 && !started) {
          started = true;
          continue;
        }
      } else if (c == ')') {
        if (--depth == 0 && started) {
          *last = i;
          return out;
        }
      }
      if (started)
        out += c;
    }
    out += ' ';
  }
  *last = defLine;
  return out;
}

// True when every parameter has a default or is *args/**kwargs (the runner
// calls the entry with no arguments).
bool callableWithoutArguments(const std::string& params) {
  int depth = 0;
  std::string piece;
  std::vector<std::string> pieces;
  for (char c : params) {
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    if (c == ')' || c == ']' || c == '}')
      --depth;
    if (c == ',' && depth == 0) {
      pieces.push_back(piece);
      piece.clear();
    } else {
      piece += c;
    }
  }
  pieces.push_back(piece);
  for (std::string p : pieces) {
    p.erase(0, p.find_first_not_of(" \t"));
    p.erase(p.find_last_not_of(" \t") + 1);
    if (p.empty() || p == "/" || p == "*" || p[0] == '*')
      continue;
    if (p.find('=') == std::string::npos)
      return false;
  }
  return true;
}

std::vector<Function> moduleFunctions(const std::vector<std::string>& lines) {
  std::vector<Function> out;
  for (unsigned i = 0; i < lines.size(); ++i) {
    std::string name = definedName(lines[i]);
    if (name.empty())
      continue;
    Function f;
    f.name = std::move(name);
    f.defLine = i;
    // Decorators and comment lines right above belong to it.
    unsigned first = i;
    while (first > 0 && !lines[first - 1].empty() &&
           (lines[first - 1][0] == '@' || lines[first - 1][0] == '#' ||
            lines[first - 1][0] == ' ' || lines[first - 1][0] == ')'))
      --first;
    // Skip back over continuation lines only if they belong to a decorator.
    while (first < i && lines[first][0] != '@' && lines[first][0] != '#')
      ++first;
    f.firstLine = first;
    unsigned sigEnd = i;
    f.params = parameters(lines, i, &sigEnd);
    unsigned end = sigEnd + 1;
    while (end < lines.size() && !isTopLevelCode(lines[end]))
      ++end;
    f.endLine = end;
    for (unsigned k = first; k <= sigEnd; ++k)
      if (lines[k].find(kMarker) != std::string::npos)
        f.marked = true;
    for (unsigned k = first; k < end; ++k)
      f.body += lines[k] + '\n';
    out.push_back(std::move(f));
    i = std::max(i, sigEnd);
  }
  return out;
}

// The names a function's body mentions (identifiers after its def line: a
// function named like the callee is not a call). The same test as the
// regex \bname\b over the body, computed once per function: with a regex per
// (caller, callee) pair, the code lenses of a 10k-line module of 975
// functions took 30 s.
std::unordered_set<std::string> namesIn(const Function& f) {
  std::unordered_set<std::string> names;
  size_t start = f.body.find('\n', f.body.find("def "));
  if (start == std::string::npos)
    return names;
  forEachWord(f.body, start, [&](std::string_view word, size_t) {
    names.emplace(word);
    return false;
  });
  return names;
}

} // namespace

std::vector<RunTarget> findRunTargets(std::string_view source) {
  std::vector<std::string> lines = splitLines(source);
  std::vector<Function> functions = moduleFunctions(lines);
  // Functions that launch a kernel, directly or through another function of
  // this file (a fixpoint over the file's own call edges).
  std::vector<bool> launches(functions.size());
  std::vector<std::unordered_set<std::string>> mentions;
  std::unordered_map<std::string, size_t> launchers; // name -> functions of that name that launch
  for (size_t i = 0; i < functions.size(); ++i) {
    mentions.push_back(namesIn(functions[i]));
    launches[i] = mentionsLaunch(functions[i].body);
    if (launches[i])
      ++launchers[functions[i].name];
  }
  auto callsALauncher = [&](size_t i) {
    return std::any_of(mentions[i].begin(), mentions[i].end(), [&](const std::string& n) {
      auto it = launchers.find(n);
      return it != launchers.end() && it->second > 0;
    });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < functions.size(); ++i) {
      if (launches[i] || !callsALauncher(i))
        continue;
      launches[i] = changed = true;
      ++launchers[functions[i].name];
    }
  }
  std::vector<RunTarget> out;
  std::vector<size_t> entries;
  std::vector<size_t> launchersNeedingArgs;
  for (size_t i = 0; i < functions.size(); ++i) {
    const Function& f = functions[i];
    bool noArgs = callableWithoutArguments(f.params);
    std::string why;
    if (f.marked)
      why = "marked";
    else if (noArgs && launches[i])
      why = "launches a kernel";
    else if (noArgs && f.name == "main")
      why = "main";
    else if (noArgs && f.name.rfind("test_", 0) == 0)
      why = "test";
    if (!why.empty()) {
      out.push_back({f.name, f.defLine, f.name, why});
      entries.push_back(i);
    } else if (launches[i]) {
      launchersNeedingArgs.push_back(i);
    }
  }
  for (size_t fi : launchersNeedingArgs) {
    const Function* f = &functions[fi];
    for (size_t ei : entries) {
      const Function* e = &functions[ei];
      if (mentions[ei].count(f->name) != 0) {
        out.push_back({f->name, f->defLine, e->name, "called by " + e->name});
        break;
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RunTarget& a, const RunTarget& b) { return a.line < b.line; });
  return out;
}

} // namespace pallas::server::runner
