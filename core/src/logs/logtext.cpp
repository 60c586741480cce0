#include "tilescope/logs/logtext.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <fstream>
#include <istream>
#include <system_error>

namespace tilescope {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kProbeBytes = 64 * 1024;
constexpr std::size_t kChunk = 1 << 20;

std::size_t countNewlines(std::string_view s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Head cut after its last newline, tail cut after its first: no half lines at the gap.
void joinHeadTail(LogText* out, std::string head, std::string tail, std::size_t droppedBytes,
                  std::size_t droppedLines) {
  if (auto nl = head.rfind('\n'); nl != std::string::npos && nl + 1 < head.size()) {
    droppedLines += countNewlines(std::string_view(head).substr(nl + 1));
    droppedBytes += head.size() - nl - 1;
    head.resize(nl + 1);
  }
  if (auto nl = tail.find('\n'); nl != std::string::npos) {
    droppedLines += 1;
    droppedBytes += nl + 1;
    tail.erase(0, nl + 1);
  }
  out->gapOffset = head.size();
  out->gapBytes = droppedBytes;
  out->gapLines = droppedLines;
  out->text = std::move(head);
  out->text += tail;
}

void finish(LogText* log, const std::string& name) {
  if (std::string why = binaryReason(log->text); !why.empty())
    throw LogError(name + " is not a text log: " + why);
  std::size_t replaced = 0;
  std::string fixed = repairUtf8(log->text, &replaced);
  // Replacements change byte offsets: the gap moves with the bytes before it.
  if (replaced && log->gapOffset != std::string::npos)
    log->gapOffset = repairUtf8(std::string_view(log->text).substr(0, log->gapOffset)).size();
  log->text = std::move(fixed);
  log->replacedBytes = replaced;
}

// UTF-8 sequence length from its lead byte, 0 for a byte that cannot start one.
int utf8Length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}

bool validSequence(std::string_view s, std::size_t i, int n) {
  if (i + n > s.size()) return false;
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  for (int k = 1; k < n; ++k)
    if ((b(k) & 0xC0) != 0x80) return false;
  // Overlong forms and surrogates are invalid (RFC 3629).
  if (n == 3 && b(0) == 0xE0 && b(1) < 0xA0) return false;
  if (n == 3 && b(0) == 0xED && b(1) > 0x9F) return false;
  if (n == 4 && b(0) == 0xF0 && b(1) < 0x90) return false;
  if (n == 4 && b(0) == 0xF4 && b(1) > 0x8F) return false;
  return true;
}

}  // namespace

std::string binaryReason(std::string_view bytes) {
  const std::string_view probe = bytes.substr(0, kProbeBytes);
  if (probe.empty()) return "";
  std::size_t nul = 0, control = 0;
  for (unsigned char c : probe) {
    nul += c == 0;
    control += c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b;
  }
  // A stray NUL can appear in a real log; NULs in 1 % of the bytes do not.
  if (nul > 1 && nul * 100 >= probe.size())
    return "binary data (" + std::to_string(nul) + " NUL bytes in the first " + std::to_string(probe.size()) +
           " bytes)";
  if (control * 10 >= probe.size() * 3)
    return "binary data (" + std::to_string(control) + " control bytes in the first " +
           std::to_string(probe.size()) + " bytes)";
  // A log in a legacy encoding has a few invalid UTF-8 bytes; compressed or random data
  // has them everywhere.
  std::size_t invalid = 0;
  repairUtf8(probe, &invalid);
  if (invalid * 10 >= probe.size() && invalid > 16)
    return "binary data (" + std::to_string(invalid) + " bytes that are not UTF-8 in the first " +
           std::to_string(probe.size()) + " bytes)";
  return "";
}

std::string repairUtf8(std::string_view s, std::size_t* replaced) {
  std::string out;
  out.reserve(s.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.size();) {
    const int n = utf8Length(static_cast<unsigned char>(s[i]));
    if (n == 1) {
      // NUL would end C strings in the GUI and JSON consumers: a space keeps the offsets.
      out += s[i] == '\0' ? ' ' : s[i];
      ++i;
    } else if (n > 1 && validSequence(s, i, n)) {
      out.append(s.substr(i, static_cast<std::size_t>(n)));
      i += static_cast<std::size_t>(n);
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++bad;
      ++i;
    }
  }
  if (replaced) *replaced = bad;
  return out;
}

LogText prepareLog(std::string text, const std::string& name, const LogLimits& limits) {
  LogText log;
  log.originalBytes = text.size();
  if (text.size() > limits.headBytes + limits.tailBytes) {
    std::string head = text.substr(0, limits.headBytes);
    std::string tail = text.substr(text.size() - limits.tailBytes);
    const std::string_view middle =
        std::string_view(text).substr(limits.headBytes, text.size() - limits.headBytes - limits.tailBytes);
    joinHeadTail(&log, std::move(head), std::move(tail), middle.size(), countNewlines(middle));
  } else {
    log.text = std::move(text);
  }
  finish(&log, name);
  return log;
}

LogText readLog(std::istream& in, const std::string& name, const LogLimits& limits) {
  LogText log;
  std::string head;
  std::deque<std::string> tail;
  std::size_t tailSize = 0, droppedBytes = 0, droppedLines = 0, total = 0;
  std::string chunk(kChunk, '\0');
  while (in && total < limits.maxStreamBytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(std::min(kChunk, limits.maxStreamBytes - total)));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    std::string_view piece(chunk.data(), got);
    // Refuse binary input at its first chunk: /dev/zero must not be read to the cap.
    if (total == 0)
      if (std::string why = binaryReason(piece); !why.empty())
        throw LogError(name + " is not a text log: " + why);
    total += got;
    if (head.size() < limits.headBytes) {
      const std::size_t take = std::min(piece.size(), limits.headBytes - head.size());
      head.append(piece.substr(0, take));
      piece.remove_prefix(take);
    }
    if (piece.empty()) continue;
    tail.emplace_back(piece);
    tailSize += piece.size();
    while (tailSize - tail.front().size() >= limits.tailBytes) {
      droppedBytes += tail.front().size();
      droppedLines += countNewlines(tail.front());
      tailSize -= tail.front().size();
      tail.pop_front();
    }
  }
  log.originalBytes = total;
  log.streamCut = total >= limits.maxStreamBytes && in.peek() != std::char_traits<char>::eof();
  std::string rest;
  rest.reserve(tailSize);
  for (const auto& t : tail) rest += t;
  if (droppedBytes == 0 && rest.size() <= limits.tailBytes) {
    log.text = std::move(head);
    log.text += rest;
  } else {
    // Trim the tail to tailBytes exactly, counting what goes.
    const std::size_t extra = rest.size() > limits.tailBytes ? rest.size() - limits.tailBytes : 0;
    droppedLines += countNewlines(std::string_view(rest).substr(0, extra));
    joinHeadTail(&log, std::move(head), rest.substr(extra), droppedBytes + extra, droppedLines);
  }
  finish(&log, name);
  return log;
}

LogText readLogFile(const fs::path& path, const LogLimits& limits) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw LogError("cannot read log file '" + path.string() + "': no such file");
  if (fs::is_directory(st)) throw LogError("'" + path.string() + "' is a directory, not a log file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LogError("cannot read log file '" + path.string() + "': " + std::strerror(errno));
  if (!fs::is_regular_file(st)) return readLog(in, "'" + path.string() + "'", limits);
  const auto size = static_cast<std::size_t>(fs::file_size(path, ec));
  if (ec || size <= limits.headBytes + limits.tailBytes)
    return readLog(in, "'" + path.string() + "'", limits);
  // A large regular file: read the head and the tail; count the lines in between.
  LogText log;
  log.originalBytes = size;
  std::string head(limits.headBytes, '\0'), tail(limits.tailBytes, '\0'), chunk(kChunk, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (std::string why = binaryReason(head); !why.empty())
    throw LogError("'" + path.string() + "' is not a text log: " + why);
  std::size_t middle = size - limits.headBytes - limits.tailBytes, lines = 0;
  for (std::size_t left = middle; left > 0 && in;) {
    in.read(chunk.data(), static_cast<std::streamsize>(std::min(left, kChunk)));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    lines += countNewlines(std::string_view(chunk.data(), got));
    left -= got;
  }
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<std::size_t>(in.gcount()));
  joinHeadTail(&log, std::move(head), std::move(tail), middle, lines);
  finish(&log, "'" + path.string() + "'");
  return log;
}

}  // namespace tilescope
