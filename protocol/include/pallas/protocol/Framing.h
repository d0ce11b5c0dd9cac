// Content-Length framing (the LSP base protocol): an incremental reader that
// turns a byte stream into message bodies and a writer that frames a body.
//
// The reader never trusts the peer: a malformed header, a missing or oversized
// Content-Length, or a header block that never ends produces an Error event
// and the reader resynchronises on the next "Content-Length:" header, so one
// bad message never ends the session.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::protocol {

// The largest body we accept. LSP messages carrying whole documents are a few
// MiB at most; a larger Content-Length is treated as a framing error (and the
// bytes are skipped) rather than an allocation the peer controls.
inline constexpr size_t kDefaultMaxContentLength = 64u * 1024 * 1024;
// A header block longer than this without its terminating blank line is junk.
inline constexpr size_t kMaxHeaderBlock = 8 * 1024;

struct FrameEvent {
  enum class Kind { Message, Error };
  Kind kind = Kind::Message;
  std::string body;  // Message: the JSON text
  std::string error; // Error: one line saying what was wrong
};

class FrameReader {
public:
  explicit FrameReader(size_t maxContentLength = kDefaultMaxContentLength)
      : maxContentLength_(maxContentLength) {}

  // Appends bytes read from the stream.
  void feed(std::string_view bytes);
  // Puts bytes back in front of the unread input (used when a body turns out
  // to contain the start of the next message, i.e. the body was truncated).
  void unread(std::string_view bytes);
  // The next complete message or framing error; nullopt when more input is
  // needed.
  std::optional<FrameEvent> next();
  // Called at end of stream: an error if a partial message is left over.
  std::optional<FrameEvent> finish();

  size_t maxContentLength() const { return maxContentLength_; }
  size_t buffered() const { return buffer_.size() - pos_; }

private:
  // Drops bytes up to the next "Content-Length:" at or after `from`.
  void resync(size_t from);
  void compact();

  size_t maxContentLength_;
  std::string buffer_;
  size_t pos_ = 0; // start of unread input in buffer_
  // Body length of the message whose header has been read, if any.
  std::optional<size_t> pendingBody_;
  // After a framing error: discarding input until the next header.
  bool skipping_ = false;
};

// "Content-Length: N\r\n\r\n" + body.
std::string frameMessage(std::string_view body);
// The same, with the body given as consecutive parts (no concatenated copy).
std::string frameMessageParts(const std::vector<std::string_view>& parts);

// Index of the first "Content-Length:" header (case-insensitive) at or after
// `from`, or npos.
size_t findContentLengthHeader(std::string_view text, size_t from = 0);

} // namespace pallas::protocol
