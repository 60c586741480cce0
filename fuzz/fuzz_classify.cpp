// Fuzzes the error-log classifier (tilescope/logs/classify.h) with the default rules.
#include "fuzz_common.h"
#include "tilescope/logs/classify.h"

using namespace tilescope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string log = fuzz::text(data, size);
  const Classification c = classifyLog(log);
  if (c.known() && c.treeNode.empty()) fuzz::violated("a known category without a tree node");
  (void)lastExceptionLine(log);
  return 0;
}
