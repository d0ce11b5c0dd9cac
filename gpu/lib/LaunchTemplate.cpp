#include "pallas/gpu/LaunchTemplate.h"

namespace pallas::gpu {

std::string shellQuote(std::string_view word) {
  const bool bare =
      !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789@%+=:,./-_") == std::string_view::npos;
  if (bare)
    return std::string(word);
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

namespace {

// One word of the template, with a flag per character saying whether it came
// from inside quotes (irrelevant for substitution, kept simple: placeholders
// are recognised anywhere in the word's text).
struct Word {
  std::string text;
  bool quoted = false; // any part of it was quoted
};

std::vector<Word> splitWords(std::string_view input) {
  std::vector<Word> words;
  Word current;
  bool inWord = false;
  for (std::size_t i = 0; i < input.size(); ++i) {
    const char c = input[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord)
        words.push_back(std::move(current));
      current = Word{};
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\\') {
      if (++i == input.size())
        throw LaunchTemplateError("launch template ends with a backslash");
      current.text += input[i];
    } else if (c == '\'') {
      const std::size_t end = input.find('\'', i + 1);
      if (end == std::string_view::npos)
        throw LaunchTemplateError("launch template has an unterminated ' quote");
      current.text.append(input.substr(i + 1, end - i - 1));
      current.quoted = true;
      i = end;
    } else if (c == '"') {
      current.quoted = true;
      for (++i;; ++i) {
        if (i >= input.size())
          throw LaunchTemplateError("launch template has an unterminated \" quote");
        if (input[i] == '"')
          break;
        if (input[i] == '\\' && i + 1 < input.size() &&
            (input[i + 1] == '"' || input[i + 1] == '\\' || input[i + 1] == '$' ||
             input[i + 1] == '`'))
          ++i;
        current.text += input[i];
      }
    } else {
      current.text += c;
    }
  }
  if (inWord)
    words.push_back(std::move(current));
  return words;
}

std::string joinQuoted(const std::vector<std::string>& args) {
  std::string joined;
  for (const std::string& arg : args) {
    if (!joined.empty())
      joined += ' ';
    joined += shellQuote(arg);
  }
  return joined;
}

} // namespace

std::vector<std::string> expandLaunchTemplate(std::string_view launchTemplate,
                                              const LaunchValues& values) {
  if (launchTemplate.find("{runner}") == std::string_view::npos &&
      launchTemplate.find("{cmd}") == std::string_view::npos)
    throw LaunchTemplateError("launch template must contain {cmd} (the whole run command) or "
                              "{runner} (the runner script)");
  std::vector<std::string> argv;
  std::vector<Word> words = splitWords(launchTemplate);
  // ssh joins its arguments into one command line for the remote shell: there
  // {cmd} is that line, shell-quoted, so paths with spaces survive.
  bool ssh = !words.empty() && (words[0].text == "ssh" || words[0].text.ends_with("/ssh"));
  std::string cmdLine = shellQuote(values.python) + " " + shellQuote(values.runner) +
                        (values.args.empty() ? "" : " " + joinQuoted(values.args));
  for (Word& word : words) {
    if (!word.quoted && word.text == "{cmd}" && ssh) {
      argv.push_back(cmdLine);
    } else if (!word.quoted && word.text == "{cmd}") {
      // {cmd} is {python} {runner} {args}: `srun --gpus=1 {cmd}`.
      argv.push_back(values.python);
      argv.push_back(values.runner);
      argv.insert(argv.end(), values.args.begin(), values.args.end());
    } else if (!word.quoted && word.text == "{python}") {
      argv.push_back(values.python);
    } else if (!word.quoted && word.text == "{runner}") {
      argv.push_back(values.runner);
    } else if (!word.quoted && word.text == "{args}") {
      argv.insert(argv.end(), values.args.begin(), values.args.end());
    } else {
      // Embedded: the word is a command for another shell; quote for it.
      const std::pair<std::string_view, std::string> replacements[] = {
          {"{python}", shellQuote(values.python)},
          {"{runner}", shellQuote(values.runner)},
          {"{args}", joinQuoted(values.args)},
          {"{cmd}", cmdLine},
      };
      std::string out;
      std::string_view text = word.text;
      while (!text.empty()) {
        bool replaced = false;
        for (const auto& [placeholder, value] : replacements) {
          if (text.substr(0, placeholder.size()) == placeholder) {
            out += value;
            text.remove_prefix(placeholder.size());
            replaced = true;
            break;
          }
        }
        if (!replaced) {
          out += text.front();
          text.remove_prefix(1);
        }
      }
      argv.push_back(std::move(out));
    }
  }
  if (argv.empty())
    throw LaunchTemplateError("launch template is empty");
  return argv;
}

} // namespace pallas::gpu
