// runChild's bounds (docs/security.md, "Denial of service"): output split into lines in linear
// time with each buffer capped, and no descendant outliving the child, not even
// one that left the process group with setsid.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tilescope/base/process.h"

using namespace tilescope;

namespace {

double secondsOf(const std::function<void()>& f) {
  const auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Whether `pid` still exists as a process that is not a zombie.
bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

/// Runs `script` under sh; the first stdout line is the pid of the grandchild it leaves.
pid_t grandchildOf(const std::string& script, double timeoutS, ChildResult* result = nullptr) {
  pid_t pid = 0;
  const ChildResult r = runChild({"sh", "-c", script}, timeoutS, [&](const std::string& line) {
    if (pid == 0) pid = static_cast<pid_t>(std::stol(line));
  });
  if (result) *result = r;
  return pid;
}

}  // namespace

TEST(Process, ASetsidGrandchildDoesNotOutliveTheChild) {
  // The child exits at once; the grandchild left its group and holds no pipe.
  const pid_t detached = grandchildOf("setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!", 30);
  ASSERT_GT(detached, 0);
  EXPECT_FALSE(alive(detached));
}

TEST(Process, ASetsidGrandchildHoldingThePipesEndsAtTheTimeout) {
  ChildResult r;
  pid_t holder = 0;
  const double s = secondsOf([&] { holder = grandchildOf("setsid sleep 1000 & echo $!; exit 0", 1.5, &r); });
  ASSERT_GT(holder, 0);
  EXPECT_TRUE(r.timedOut);  // its pipes stayed open until the watchdog
  EXPECT_LT(s, 10);
  EXPECT_FALSE(alive(holder));
}

TEST(Process, TheWatchdogEndsAGrandchildThatLeftTheGroup) {
  ChildResult r;
  const pid_t pid = grandchildOf("setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!; sleep 1000", 1, &r);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(r.timedOut);
  EXPECT_FALSE(alive(pid));
}

TEST(Process, TheChildCarriesItsToken) {
  std::string token;
  runChild({"sh", "-c", "echo \"$TILESCOPE_CHILD\""}, 10, [&](const std::string& l) { token = l; }, {}, {},
           {"TILESCOPE_CHILD=forged"});
  EXPECT_NE(token, "");
  EXPECT_NE(token, "forged");  // its own, whatever extraEnv says
}

TEST(Process, ManyShortLinesAreReadInLinearTime) {
  // 16 Mi empty lines: erasing the buffer once per line moved ~2 GB per 64 KiB read.
  std::size_t lines = 0;
  const double s = secondsOf([&] {
    runChild({"sh", "-c", "head -c 16777216 /dev/zero | tr '\\0' '\\n'"}, 120,
             [&](const std::string&) { ++lines; });
  });
  EXPECT_EQ(lines, std::size_t{16} << 20);
  EXPECT_LT(s, 30);
}

TEST(Process, ALongLineIsReadInLinearTime) {
  std::size_t longest = 0, lines = 0;
  const double s = secondsOf([&] {
    runChild({"sh", "-c", "head -c 67108864 /dev/zero | tr '\\0' x"}, 120, [&](const std::string& l) {
      ++lines;
      longest = std::max(longest, l.size());
    });
  });
  EXPECT_EQ(lines, 1u);
  EXPECT_EQ(longest, std::size_t{64} << 20);
  EXPECT_LT(s, 30);
}

TEST(Process, StderrIsBoundedLineByLine) {
  std::size_t lines = 0, longest = 0;
  const ChildResult r =
      runChild({"sh", "-c", "head -c 8388608 /dev/zero | tr '\\0' e >&2; echo >&2; echo tail >&2"}, 60, {},
               {}, [&](const std::string& l) {
                 ++lines;
                 longest = std::max(longest, l.size());
               });
  EXPECT_EQ(r.stderrText.size(), std::size_t{1} << 20);
  EXPECT_EQ(lines, 2u);  // the 8 MiB line cut at 1 MiB, then "tail"
  EXPECT_EQ(longest, std::size_t{1} << 20);
}
