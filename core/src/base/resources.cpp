#include "tilescope/base/resources.h"

#include <cstdlib>
#include <system_error>

namespace tilescope {
namespace {

std::filesystem::path executableDir() {
  std::error_code ec;
  // Linux: /proc/self/exe names the running binary even when started through a symlink.
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

bool isDir(const std::filesystem::path& p) {
  std::error_code ec;
  return !p.empty() && std::filesystem::is_directory(p, ec);
}

}  // namespace

std::filesystem::path resourceDir() {
  if (const char* env = std::getenv("TILESCOPE_RESOURCE_DIR"); env && *env) return env;
#ifdef TILESCOPE_SOURCE_RESOURCE_DIR
  if (isDir(TILESCOPE_SOURCE_RESOURCE_DIR)) return TILESCOPE_SOURCE_RESOURCE_DIR;
#endif
  if (auto dir = executableDir(); !dir.empty()) {
    auto installed = dir / ".." / "share" / "tilescope";
    if (isDir(installed)) return installed.lexically_normal();
  }
#ifdef TILESCOPE_INSTALL_RESOURCE_DIR
  return TILESCOPE_INSTALL_RESOURCE_DIR;
#else
  return "resources";
#endif
}

}  // namespace tilescope
