// Reading pasted or saved error logs safely: bounded reads of files, pipes and devices
// (a 50 MB CI log, /dev/zero), binary data refused with a message, invalid UTF-8
// replaced, and the lines split, numbered and stripped of the prefixes CI systems and
// launchers put in front of every line (timestamps, `[rank7]:`, glog headers, pytest's
// `E   `, compute-sanitizer's `=========`). Pure functions except readLogFile/readLog.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope {

/// A log that cannot be read as text: the message names the file and the problem.
class LogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LogLimits {
  /// Logs larger than head + tail keep their first headBytes and last tailBytes: the
  /// first error of a build and the last exception of a run are where the answer is.
  std::size_t headBytes = std::size_t(4) << 20;
  std::size_t tailBytes = std::size_t(28) << 20;
  /// A pipe or device is read at most this far (`yes` never ends; /dev/zero is
  /// refused as binary at its first chunk). Reading keeps only head and tail, so
  /// the bound is time, not memory: a log piped in whole is read to its end, as a
  /// file is (512 MiB cut a 1 GiB log before its error, docs/security.md, "Denial of service").
  std::size_t maxStreamBytes = std::size_t(64) << 30;
  /// Lines examined: the first headLines and the last tailLines of a longer log.
  std::size_t headLines = 20000;
  std::size_t tailLines = 180000;
  /// Characters of a line that rules look at (a dumped tensor can be megabytes).
  std::size_t maxLineChars = 2048;
};

/// The text of a log as TileScope examines it.
struct LogText {
  std::string text;               ///< valid UTF-8
  std::size_t originalBytes = 0;  ///< bytes in the input (as far as it was read)
  std::size_t replacedBytes = 0;  ///< invalid UTF-8 bytes replaced by U+FFFD
  bool streamCut = false;         ///< a pipe/device was cut at maxStreamBytes
  /// Where bytes between head and tail were dropped: the offset in `text` where the
  /// tail starts, and how many bytes and lines were dropped (npos/0: nothing dropped).
  std::size_t gapOffset = std::string::npos;
  std::size_t gapBytes = 0;
  std::size_t gapLines = 0;
};

/// Reads `path`: a directory, a missing or unreadable file and binary data throw
/// LogError naming the path; files and streams larger than the limits keep head and tail.
LogText readLogFile(const std::filesystem::path& path, const LogLimits& limits = {});
/// The same for an already open stream (stdin); `name` is used in messages.
LogText readLog(std::istream& in, const std::string& name, const LogLimits& limits = {});
/// Prepares text already in memory (a paste): binary check, UTF-8 repair, head/tail.
LogText prepareLog(std::string text, const std::string& name, const LogLimits& limits = {});

/// Why `bytes` is not a text log ("" when it is): NUL bytes or mostly control bytes
/// in the first 64 KiB.
std::string binaryReason(std::string_view bytes);
/// `s` with every invalid UTF-8 sequence replaced by U+FFFD; `replaced` counts bytes.
std::string repairUtf8(std::string_view s, std::size_t* replaced = nullptr);

/// Everything a CI system or launcher put before the message: ISO/glog/bracketed
/// timestamps, `[rank3]:`, `(RayWorkerWrapper pid=1)`, `[80746]`, TeamCity and MSVC
/// prefixes, pytest's `E   `, compute-sanitizer's `=========`. Returns the rest.
std::string_view stripLogPrefixes(std::string_view line);

struct LogLine {
  std::size_t number = 0;  ///< 1-based line number in the log
  std::string_view raw;    ///< the line as in the log (no newline)
  std::string_view text;   ///< prefixes stripped, trimmed, cut at maxLineChars
};

/// The lines of a log; in a log of more than headLines + tailLines lines, only the
/// first headLines and the last tailLines (their numbers stay those of the log).
struct LogLines {
  std::vector<LogLine> lines;
  std::size_t total = 0;    ///< lines in the log (counting any dropped by LogText)
  std::size_t skipped = 0;  ///< lines not examined (dropped or beyond the line limits)
};
LogLines splitLogLines(const LogText& log, const LogLimits& limits = {});
LogLines splitLogLines(std::string_view text, const LogLimits& limits = {});

}  // namespace tilescope
