#include "TomlLimits.h"

#include <vector>

namespace pallas::check {
namespace {

// One pass over the text. Depth counts every key part (of the table header
// and of the key, dotted), every array and every inline table opened on the
// way to a value: `[tool.a] b.c = [{d = 1}]` reaches 6. That over-counts a
// little (an inline table is counted with its key), never under.
class Scanner {
public:
  explicit Scanner(std::string_view text) : t_(text) {}

  std::optional<TomlLimitError> run() {
    while (i_ < t_.size() && !error_) {
      char c = t_[i_];
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
        continue;
      }
      if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n')
          ++i_;
        continue;
      }
      if (c == '"' || c == '\'') {
        if (ctx_ == Ctx::KeyStart)
          ctx_ = Ctx::InKey;
        arrayExpectsValue_ = false;
        valueStarts_ = false;
        skipString();
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        nonAscii();
        return error_;
      }
      if ((ctx_ == Ctx::KeyStart) && c == '[' && frames_.empty()) {
        header();
        continue;
      }
      if (ctx_ == Ctx::KeyStart || ctx_ == Ctx::InKey)
        keyChar(c);
      else
        valueChar(c);
      ++i_;
    }
    return error_;
  }

private:
  enum class Ctx { KeyStart, InKey, Value };
  struct Frame {
    char kind;    // '{' or '['
    size_t depth; // of what is directly inside it
  };

  void fail(const std::string& reason) {
    if (!error_)
      error_ = TomlLimitError{line_, i_ - lineStart_ + 1, reason};
  }

  // TOML allows characters outside ASCII only in strings and comments.
  // Elsewhere toml++ 3.3 asks whether they are white space, and for most of
  // them (U+00A1-U+0499 among others) its table reaches
  // __builtin_unreachable: undefined behaviour on `é = 1`. Found by
  // fuzz_config; refused here, as an error the parser would report.
  void nonAscii() { fail("invalid TOML: a character outside ASCII outside a string or comment"); }

  void checkDepth(size_t depth) {
    if (depth > kMaxTomlDepth)
      fail("tables, keys and values nested deeper than " + std::to_string(kMaxTomlDepth) +
           " levels (dotted keys, table headers, arrays and inline tables); the file is "
           "refused before it is parsed");
  }

  static bool bareKeyChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  }

  size_t containerDepth() const { return frames_.empty() ? header_ : frames_.back().depth; }

  void newline() {
    ++i_;
    ++line_;
    lineStart_ = i_;
    if (frames_.empty()) { // a statement ends with its line outside brackets
      ctx_ = Ctx::KeyStart;
      keyDots_ = 0;
    }
  }

  void keyChar(char c) {
    arrayExpectsValue_ = false;
    if (c == '.') {
      ++keyDots_;
      checkDepth(containerDepth() + keyDots_ + 1);
    } else if (c == '=') {
      valueDepth_ = containerDepth() + keyDots_ + 1;
      keyDots_ = 0;
      ctx_ = Ctx::Value;
      valueStarts_ = true;
    } else if (c == '}' || c == ']') {
      close(); // `{}` or a stray bracket: toml++ judges it
    } else if (c == ',' && !frames_.empty() && frames_.back().kind == '{') {
      keyDots_ = 0;
      ctx_ = Ctx::KeyStart;
    } else {
      ctx_ = Ctx::InKey;
    }
  }

  void valueChar(char c) {
    // toml++ 3.3 parses a value where an array expects one without checking
    // for '}' (`[1, }`): an assertion, or undefined behaviour where
    // assertions are off. Found by fuzz_config; refused as it would be.
    bool expected = arrayExpectsValue_;
    arrayExpectsValue_ = false;
    if (expected && c == '}') {
      fail("invalid TOML: expected a value or ']' in the array, saw '}'");
      return;
    }
    bool starts = valueStarts_ || expected;
    valueStarts_ = false;
    if (starts && c >= '0' && c <= '9' && !dateTimeHasTime())
      return;
    if (c == '{' || c == '[') {
      size_t depth = valueDepth_ + 1;
      checkDepth(depth);
      frames_.push_back({c, depth});
      if (c == '{') {
        ctx_ = Ctx::KeyStart;
        keyDots_ = 0;
      } else {
        valueDepth_ = depth;
        arrayExpectsValue_ = true;
      }
    } else if (c == '}' || c == ']') {
      close();
    } else if (c == ',' && !frames_.empty()) {
      if (frames_.back().kind == '{') {
        ctx_ = Ctx::KeyStart;
        keyDots_ = 0;
      } else {
        valueDepth_ = frames_.back().depth;
        arrayExpectsValue_ = true;
      }
    }
    // Anything else is part of a scalar (a float's '.', a date, true).
  }

  // toml++ 3.3 reads a date-time's time after "YYYY-MM-DD" and 'T' without
  // checking that a digit follows (`1979-05-27T-7:32:00`): an assertion, or
  // undefined behaviour where assertions are off. Found by fuzz_config;
  // refused as the parser would have. False when refused.
  bool dateTimeHasTime() {
    auto digits = [&](size_t at, size_t n) {
      for (size_t k = 0; k < n; ++k)
        if (at + k >= t_.size() || t_[at + k] < '0' || t_[at + k] > '9')
          return false;
      return true;
    };
    size_t d = i_;
    if (!digits(d, 4) || d + 10 >= t_.size() || t_[d + 4] != '-' || !digits(d + 5, 2) ||
        t_[d + 7] != '-' || !digits(d + 8, 2))
      return true;
    char sep = t_[d + 10];
    if ((sep == 'T' || sep == 't') && !digits(d + 11, 1)) {
      i_ = d + 11;
      fail("invalid TOML: a date-time needs the hour after 'T'");
      return false;
    }
    return true;
  }

  void close() {
    if (!frames_.empty())
      frames_.pop_back();
    ctx_ = Ctx::Value;
    if (!frames_.empty() && frames_.back().kind == '[')
      valueDepth_ = frames_.back().depth;
  }

  // `[a.b."c"]` or `[[a.b]]` at the start of a statement.
  void header() {
    ++i_;
    if (i_ < t_.size() && t_[i_] == '[')
      ++i_;
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t'))
      ++i_;
    // toml++ 3.3 reads the key of a header without checking its first
    // character (`[,]`, `[` then a line break): an assertion in a debug
    // build, a false __builtin_assume (undefined behaviour) in ours. Found
    // by fuzz_config; refused here, as the parser would have.
    if (i_ < t_.size() && !bareKeyChar(t_[i_]) && t_[i_] != '"' && t_[i_] != '\'' &&
        t_[i_] != ']') {
      std::string saw = static_cast<unsigned char>(t_[i_]) >= 0x20 && t_[i_] != 0x7f
                            ? std::string(1, t_[i_])
                            : "a control character";
      fail("invalid TOML: a table header must start with a key, saw '" + saw + "'");
      return;
    }
    size_t dots = 0;
    while (i_ < t_.size() && t_[i_] != ']' && t_[i_] != '\n' && !error_) {
      char c = t_[i_];
      if (c == '"' || c == '\'') {
        skipString();
        continue;
      }
      if (c == '.') {
        ++dots;
        checkDepth(dots + 1);
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        nonAscii();
        return;
      }
      ++i_;
    }
    header_ = dots + 1;
    while (i_ < t_.size() && t_[i_] == ']')
      ++i_;
    ctx_ = Ctx::Value; // the rest of the line: a comment, or an error for toml++
  }

  // A basic ("..."), literal ('...') or multi-line ("""...""", '''...''')
  // string, from its opening quote. A single-line string stops at the end of
  // its line (unterminated: toml++ reports it).
  void skipString() {
    char q = t_[i_];
    bool multi = i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q;
    i_ += multi ? 3 : 1;
    while (i_ < t_.size()) {
      char c = t_[i_];
      if (c == '\\' && q == '"') {
        // In a multi-line basic string toml++ asks whether what follows a
        // backslash (after a line-ending backslash: the first character
        // that is not white space) is white space; for most non-ASCII
        // characters its table reaches __builtin_unreachable.
        if (multi) {
          size_t j = i_ + 1;
          while (j < t_.size() && (t_[j] == ' ' || t_[j] == '\t' || t_[j] == '\r' || t_[j] == '\n'))
            ++j;
          if (j < t_.size() && static_cast<unsigned char>(t_[j]) >= 0x80) {
            i_ = j;
            fail("a non-ASCII character after a backslash in a multi-line string is refused "
                 "(toml++ 3.3 mishandles it)");
            return;
          }
        }
        if (i_ + 1 < t_.size() && t_[i_ + 1] == '\n') {
          ++i_;
          continue; // the line break is counted below
        }
        i_ += 2;
        continue;
      }
      if (c == '\n') {
        if (!multi)
          return;
        ++i_;
        ++line_;
        lineStart_ = i_;
        continue;
      }
      if (c == q) {
        if (!multi) {
          ++i_;
          return;
        }
        if (i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q) {
          i_ += 3;
          for (int extra = 0; extra < 2 && i_ < t_.size() && t_[i_] == q; ++extra)
            ++i_; // """a"""" ends with a quote inside
          return;
        }
      }
      ++i_;
    }
  }

  std::string_view t_;
  size_t i_ = 0;
  size_t line_ = 1;
  size_t lineStart_ = 0;
  Ctx ctx_ = Ctx::KeyStart;
  size_t header_ = 0;              // parts of the current table header
  size_t keyDots_ = 0;             // dots of the key being read
  size_t valueDepth_ = 0;          // depth of the value being read
  bool arrayExpectsValue_ = false; // right after an array's "[" or ","
  bool valueStarts_ = false;       // right after a key's "="
  std::vector<Frame> frames_;
  std::optional<TomlLimitError> error_;
};

} // namespace

std::optional<TomlLimitError> checkTomlLimits(std::string_view text) {
  if (text.size() > kMaxTomlBytes)
    return TomlLimitError{1, 1,
                          "larger than " + std::to_string(kMaxTomlBytes >> 20) +
                              " MiB; the file is refused before it is parsed"};
  return Scanner(text).run();
}

} // namespace pallas::check
