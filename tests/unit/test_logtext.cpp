// Reading logs safely (tilescope/logs/logtext.h): directories, binary data, /dev/zero,
// invalid UTF-8, huge files and lines, and the prefixes CI systems add to lines.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilescope/logs/logtext.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tilescope_logtext_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return path / name;
  }
};

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const LogError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LogText, ADirectoryOrMissingFileIsAClearError) {
  TempDir d;
  std::string m = messageOf([&] { readLogFile(d.path); });
  EXPECT_NE(m.find("is a directory"), std::string::npos) << m;
  EXPECT_NE(m.find(d.path.string()), std::string::npos) << m;
  m = messageOf([&] { readLogFile(d.path / "nope.log"); });
  EXPECT_NE(m.find("no such file"), std::string::npos) << m;
}

TEST(LogText, BinaryDataIsRefusedWithTheReason) {
  TempDir d;
  std::string bytes(4096, '\0');
  for (std::size_t i = 0; i < bytes.size(); i += 3) bytes[i] = char(i * 7);
  const std::string m = messageOf([&] { readLogFile(d.write("core.bin", bytes)); });
  EXPECT_NE(m.find("not a text log"), std::string::npos) << m;
  EXPECT_NE(m.find("NUL bytes"), std::string::npos) << m;
  // A stray NUL in a real log is not binary: it becomes a space.
  std::string text = "RuntimeError: CUDA error: an illegal memory access\n";
  text[5] = '\0';
  const LogText t = readLogFile(d.write("one_nul.log", text));
  EXPECT_EQ(t.text.substr(0, 7), "Runti e");
}

TEST(LogText, DevZeroIsRefusedAtOnce) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP();
  const auto t0 = std::chrono::steady_clock::now();
  const std::string m = messageOf([&] { readLogFile("/dev/zero"); });
  EXPECT_NE(m.find("not a text log"), std::string::npos) << m;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(LogText, AnEndlessTextStreamIsCut) {
  // /dev/zero-like but text: a stream is read at most maxStreamBytes.
  struct Endless : std::streambuf {
    char buf[4096];
    int_type underflow() override {
      for (std::size_t i = 0; i < sizeof buf; ++i) buf[i] = i % 64 == 63 ? '\n' : 'y';
      setg(buf, buf, buf + sizeof buf);
      return traits_type::to_int_type(buf[0]);
    }
  } sb;
  std::istream in(&sb);
  LogLimits lim;
  lim.maxStreamBytes = 1 << 20;
  lim.headBytes = 64 << 10;
  lim.tailBytes = 128 << 10;
  const LogText t = readLog(in, "stdin", lim);
  EXPECT_TRUE(t.streamCut);
  EXPECT_EQ(t.originalBytes, std::size_t(1) << 20);
  EXPECT_LE(t.text.size(), lim.headBytes + lim.tailBytes);
  EXPECT_GT(t.gapLines, 0u);
}

TEST(LogText, InvalidUtf8IsReplacedNotFatal) {
  std::size_t n = 0;
  EXPECT_EQ(repairUtf8("a\xff"
                       "b",
                       &n),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(n, 1u);
  // Truncated sequence, overlong encoding and a surrogate are each replaced.
  EXPECT_EQ(repairUtf8("\xE2\x82", &n), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(repairUtf8("\xC0\xAF", &n), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(repairUtf8("\xED\xA0\x80", &n), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  // Valid multi-byte text is kept.
  EXPECT_EQ(repairUtf8("×→ü 🙂", &n), "×→ü 🙂");
  EXPECT_EQ(n, 0u);
  const LogText t = prepareLog("error \xfe\xfe here\n", "paste");
  EXPECT_EQ(t.replacedBytes, 2u);
  EXPECT_EQ(binaryReason(t.text), "");
}

TEST(LogText, AHugeFileKeepsHeadAndTailAndItsLineNumbers) {
  TempDir d;
  LogLimits lim;
  lim.headBytes = 4096;
  lim.tailBytes = 8192;
  std::string text;
  for (int i = 1; i <= 20000; ++i) text += "line " + std::to_string(i) + "\n";
  const LogText t = readLogFile(d.write("big.log", text), lim);
  EXPECT_EQ(t.originalBytes, text.size());
  EXPECT_GT(t.gapBytes, 0u);
  EXPECT_LE(t.text.size(), lim.headBytes + lim.tailBytes);
  const LogLines ll = splitLogLines(t, lim);
  EXPECT_EQ(ll.total, 20000u);
  // Every kept line keeps its number in the file, on both sides of the gap.
  for (const LogLine& l : ll.lines) EXPECT_EQ(l.text, "line " + std::to_string(l.number)) << l.number;
  EXPECT_EQ(ll.lines.back().number, 20000u);
  EXPECT_EQ(ll.skipped + ll.lines.size(), 20000u);
  // The same log from a pipe gives the same lines.
  std::istringstream in(text);
  const LogLines fromStream = splitLogLines(readLog(in, "stdin", lim), lim);
  ASSERT_EQ(fromStream.lines.size(), ll.lines.size());
  EXPECT_EQ(fromStream.lines.front().number, ll.lines.front().number);
  EXPECT_EQ(fromStream.lines.back().number, 20000u);
}

TEST(LogText, LineLimitsKeepTheFirstAndLastLines) {
  std::string text;
  for (int i = 1; i <= 1000; ++i) text += "l" + std::to_string(i) + "\n";
  LogLimits lim;
  lim.headLines = 10;
  lim.tailLines = 20;
  const LogLines ll = splitLogLines(std::string_view(text), lim);
  ASSERT_EQ(ll.lines.size(), 30u);
  EXPECT_EQ(ll.lines[9].number, 10u);
  EXPECT_EQ(ll.lines[10].number, 981u);
  EXPECT_EQ(ll.skipped, 970u);
}

TEST(LogText, AVeryLongLineIsCutForMatching) {
  const std::string line = std::string(1 << 20, 'x') + " illegal memory access";
  const LogLines ll = splitLogLines(std::string_view(line));
  ASSERT_EQ(ll.lines.size(), 1u);
  EXPECT_EQ(ll.lines[0].text.size(), LogLimits{}.maxLineChars);
  EXPECT_EQ(ll.lines[0].raw.size(), line.size());
}

TEST(LogText, PrefixesOfCiSystemsAndLaunchersAreStripped) {
  const std::pair<const char*, const char*> cases[] = {
      {"2025-02-26T07:40:38.1234567Z RuntimeError: boom", "RuntimeError: boom"},
      {"[rank7]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught",
       "Watchdog caught"},
      {"[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 5 Rank 0] Heartbeat", "[PG 5 Rank 0] Heartbeat"},
      {"[80746] [rank0]: NameError: x", "NameError: x"},
      {"(RayWorkerWrapper pid=4009) [rank1]:[E ProcessGroupNCCL.cpp:563] Some NCCL operations",
       "Some NCCL operations"},
      {"E0213 12:41:17.931882   59040 rendezvous.cc:98] This thread has been waiting",
       "This thread has been waiting"},
      {"W0922 18:51:16.217000 1197897 torch/distributed/run.py:774] *****", "*****"},
      {"2021-08-05 11:50:49.209319: E tensorflow/stream_executor/cuda/cuda_event.cc:29] Error polling",
       "Error polling"},
      {"ERROR 01-28 03:21:01 engine.py:387]   File \"x.py\"", "File \"x.py\""},
      {"[15:21:23][Step 3/7] Not equal to tolerance", "Not equal to tolerance"},
      {"1>  ptxas info    : Used 255 registers", "ptxas info    : Used 255 registers"},
      {"E       AssertionError: Tensor-likes are not close!", "AssertionError: Tensor-likes are not close!"},
      {"=========     Address 0x7fe71d800958 is out of bounds", "Address 0x7fe71d800958 is out of bounds"},
      {"##[error]Process completed with exit code 1.", "Process completed with exit code 1."},
      // Not prefixes: kept as they are.
      {"Error: Race reported between Write access", "Error: Race reported between Write access"},
      {"[PG 5 Rank 0] message", "[PG 5 Rank 0] message"},
      {"[rank", "[rank"},
      {"E", "E"},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(stripLogPrefixes(in), out) << in;
}
