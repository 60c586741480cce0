// Helpers of the `tensors` section (config_fields.cpp reads it) and the scale of inputs.
#include "config_detail.h"
#include "tilescope/base/hash.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

std::uint64_t stableNameHash(const std::string& name) {
  return fnv1a(name);  // the same name gives the same seed on every platform and run
}

void checkNpyRef(const Node& n, const std::string& value, const std::filesystem::path& dir) {
  std::string file = value.substr(4);
  if (file.empty()) n.fail("missing path after 'npy:'");
  std::filesystem::path p(file);
  if (p.is_relative()) p = (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) n.fail(".npy file '" + p.string() + "' does not exist");
}

}  // namespace tilescope::detail

namespace tilescope {

namespace {
bool isScalable(const TensorSpec& t) {
  return !t.output && isFloating(t.dtype) && t.init != "zeros" && t.init.rfind("npy:", 0) != 0;
}
}  // namespace

std::vector<std::string> scalableInputs(const Config& config) {
  std::vector<std::string> out;
  for (const auto& t : config.tensors)
    if (isScalable(t)) out.push_back(t.name);
  return out;
}

void scaleInputs(Config& config, double factor) {
  for (auto& t : config.tensors)
    if (isScalable(t)) t.scale *= factor;
}

}  // namespace tilescope
