// Where TileScope finds its data files (device database, troubleshooting tree, ...).
#pragma once

#include <filesystem>

namespace tilescope {

/// The resource directory, first that exists of: $TILESCOPE_RESOURCE_DIR, the source
/// tree's resources/ (a build run from its tree), ../share/tilescope next to the running
/// executable (a relocated install), the configured install data directory.
std::filesystem::path resourceDir();

}  // namespace tilescope
