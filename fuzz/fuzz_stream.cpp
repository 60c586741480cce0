// Fuzzes the tilescope.stream/1 codec (stream.h) line by line, as the session,
// `run --stream` and the GUI read a worker's output: parseStreamEvent returns an
// event, says the line is none, or throws StreamError with a message; an event
// it returns writes back (toLine) as one line that reads again to the same text.
#include "fuzz_common.h"
#include "tilescope/run/stream.h"

using namespace tilescope;

namespace {

void line(std::string_view text) {
  std::optional<StreamEvent> e;
  try {
    e = parseStreamEvent(text);
  } catch (const StreamError& x) {
    if (x.problem().empty() || std::string(x.what()).empty()) fuzz::violated("StreamError without a problem");
    return;
  }
  if (!e) return;
  const std::string written = toLine(*e);
  if (written.find('\n') != std::string::npos) fuzz::violated("toLine wrote more than one line");
  std::optional<StreamEvent> back;
  try {
    back = parseStreamEvent(written);
  } catch (const StreamError& x) {
    fuzz::violated(std::string("toLine wrote a line parseStreamEvent refuses: ") + x.what());
  }
  if (!back) fuzz::violated("toLine wrote a line that is not an event");
  if (back->body.index() != e->body.index()) fuzz::violated("the event changed kind");
  // Text, not struct equality: NaN (written as null) is not equal to itself.
  if (toLine(*back) != written) fuzz::violated("an event changes when written and read again");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string all = fuzz::text(data, size);
  for (std::size_t start = 0; start <= all.size();) {
    std::size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    line(std::string_view(all).substr(start, end - start));
    start = end + 1;
  }
  return 0;
}
