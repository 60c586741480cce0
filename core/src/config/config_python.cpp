// Kernels written in Python: `kernel.language` "triton" (a @triton.jit function) and
// "tilelang" (a function that builds a TileLang program). docs/config.md, "Triton".
#include "config_detail.h"
#include "tilescope/base/python.h"

namespace tilescope::detail {

void parsePySource(const Node& n, const std::filesystem::path& dir, KernelSpec& k) {
  k.source = n.str();
  if (k.source.empty()) n.fail("empty path");
  std::filesystem::path p(k.source);
  if (p.extension() != ".py")
    n.fail(
        "a " + k.language + " kernel's source is a .py file, found '" + k.source + "'" +
        (p.extension() == ".cu" ? " (TileLang's generated .cu is CUDA C++: leave kernel.language out)" : ""));
  k.sourcePath = p.is_absolute() ? p : (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(k.sourcePath, ec))
    n.fail("source file '" + k.sourcePath.string() + "' does not exist");
}

bool isTritonOption(const KernelSpec& k, const std::string& name) {
  if (!k.isTriton()) return false;
  for (const char* o : kTritonOptionNames)
    if (name == o) return true;
  return false;
}

void checkTritonOption(const Node& where, const std::string& name, std::int64_t v) {
  if (name == kNumWarps && (v < 1 || v > 32 || (v & (v - 1)) != 0))
    where.fail("num_warps must be a power of two from 1 to 32 (the block is 32·num_warps threads), found " +
               std::to_string(v));
  if (name == kNumStages && (v < 0 || v > 16))
    where.fail("num_stages must be between 0 and 16, found " + std::to_string(v));
  if (name == kNumCtas && (v < 1 || v > 16))
    where.fail("num_ctas must be between 1 and 16 (a thread-block cluster), found " + std::to_string(v));
}

}  // namespace tilescope::detail
