// Fuzzes a capture folder (capture.h) made from the input (fuzz_folder.h):
// capture.json, launches/<id>/launch.json records, their .npy files and the
// links between them. First loadCaptureInfo on the folder as given, then what
// `capture` does once the program ended (writeCaptureFolder: readLaunches, a
// config per launch, each verified by the config loader, which reads the .npy
// headers), then loadCaptureInfo on what it wrote. The promises: loadCaptureInfo
// throws only std::runtime_error with a message; every launch's config lies
// inside the folder (captureNameProblem, confineCaptureInfo); the folder
// writeCaptureFolder wrote reads back, with one launch per record it used.
#include "fuzz_common.h"
#include "fuzz_folder.h"
#include "tilescope/capture/capture.h"

using namespace tilescope;
namespace fs = std::filesystem;

namespace {

void checkConfined(const fs::path& dir, const CaptureInfo& info) {
  for (const CapturedLaunch& l : info.launches) {
    if (l.config.empty()) continue;
    if (!captureNameProblem(dir, dir, l.config).empty() || !fuzz::resolvesInside(dir / l.config, dir))
      fuzz::violated("a launch's config outside the capture folder: " + l.config);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::FolderSpec spec = fuzz::FolderSpec::parse(fuzz::text(data, size));
  fuzz::Scratch scratch;
  const fs::path dir = scratch.root() / "capture";
  fs::create_directory(dir);
  spec.build(dir);

  CaptureInfo info;
  try {
    info = loadCaptureInfo(dir);
    checkConfined(dir, info);
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).empty()) fuzz::violated("loadCaptureInfo: an error without a message");
  }

  std::vector<std::string> errors;
  const std::size_t records = readLaunches(dir, &errors).size();
  if (records > fuzz::FolderSpec::kMaxItems) fuzz::violated("more launches than launch folders");
  for (const std::string& e : errors)
    if (e.empty()) fuzz::violated("readLaunches: an empty error");
  const int written = writeCaptureFolder(dir, info);
  CaptureInfo again;
  try {
    again = loadCaptureInfo(dir);
  } catch (const std::runtime_error& e) {
    fuzz::violated(std::string("the capture.json writeCaptureFolder wrote does not load: ") + e.what());
  }
  if (again.launches.size() != records) fuzz::violated("capture.json lists another number of launches");
  int configs = 0;
  for (const CapturedLaunch& l : again.launches) configs += !l.config.empty();
  if (configs != written) fuzz::violated("capture.json names another number of configs than were written");
  checkConfined(dir, again);
  return 0;
}
