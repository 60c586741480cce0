// Fuzzes the error-log classifier (tilescope/logs/classify.h) with the default rules, and
// the other readers of a log: a compile log's error position, device asserts.
#include "fuzz_common.h"
#include "tilescope/diagnose/compile_error.h"
#include "tilescope/logs/classify.h"
#include "tilescope/logs/device_output.h"

using namespace tilescope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string log = fuzz::text(data, size);
  const Classification c = classifyLog(log);
  if (c.known() && c.treeNode.empty()) fuzz::violated("a known category without a tree node");
  (void)lastExceptionLine(log);
  const auto [line, column] = compileErrorPosition(log);
  if (line < 0 || column < 0) fuzz::violated("a negative compile error position");
  (void)parseDeviceAsserts(log);
  return 0;
}
