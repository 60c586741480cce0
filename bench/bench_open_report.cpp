// Where the time of opening a report goes (docs/measurements.md, "Opening a long sweep": a 20,000-point
// sweep, 209 MB, took 12.3 s): reading the file; the document way (the bounded parse, limits checked while
// the document is built, nlohmann's own parse for comparison, decoding the document into a Report); the tape
// way loadReport takes (indexing the text, decoding the tape); and loadReport end to end. No GUI.
//   bench_open_report REPORT.json...
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/base/json_input.h"
#include "tilescope/base/json_tape.h"
#include "tilescope/model/report.h"

using namespace tilescope;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void phases(const char* path) {
  auto t = Clock::now();
  const std::string text = readInputFile(path, kMaxReportBytes);
  const double read = secondsSince(t);

  t = Clock::now();
  double plain = 0;
  {
    const nlohmann::json j = nlohmann::json::parse(text);
    plain = secondsSince(t);
  }

  t = Clock::now();
  double dom = 0, decode = 0, free = 0;
  std::size_t points = 0;
  {
    nlohmann::json j = parseJson(text);
    dom = secondsSince(t);
    t = Clock::now();
    points = reportFromJson(j).points.size();
    decode = secondsSince(t);
    t = Clock::now();
  }
  free = secondsSince(t);

  t = Clock::now();
  double tape = 0, fast = 0;
  {
    const std::optional<JsonTape> indexed = JsonTape::build(text, reportJsonLimits());
    tape = secondsSince(t);
    t = Clock::now();
    const std::optional<Report> r = reportFromText(text);
    fast = secondsSince(t);
    if (!indexed || !r) std::printf("  (the tape does not take this text: loadReport parses it)\n");
  }

  t = Clock::now();
  (void)loadReport(path);
  const double load = secondsSince(t);

  std::printf("%s: %zu points, %.0f MB\n", path, points, static_cast<double>(text.size()) / 1e6);
  std::printf("  read %.2f s | nlohmann::json::parse %.2f s | parseJson (limits + DOM) %.2f s\n", read, plain,
              dom);
  std::printf("  reportFromJson %.2f s (+ freeing Report and DOM %.2f s)\n", decode, free);
  std::printf("  JsonTape::build %.2f s | reportFromText (build + decode) %.2f s | loadReport %.2f s\n", tape,
              fast, load);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_open_report REPORT.json...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    try {
      phases(argv[i]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
      return 1;
    }
  }
  return 0;
}
