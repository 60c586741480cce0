// The files a kernel source pulls in through #include, found the way NVRTC
// finds them. Used twice: to check that a config reads nothing outside its
// folder and the toolkit (docs/security.md), and to key the compile cache on
// every header that can shape the cubin (NVRTC has no dependency output).
//
// Every #include line is followed, whatever #if surrounds it: the set found is
// a superset of what the compiler reads, which is what both uses need.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tilescope/config/config.h"

namespace tilescope {

/// Where includes are looked for: "name" in the including file's folder, then
/// `dirs`; <name> in `dirs` only (NVRTC's order; -I folders in option order).
struct IncludeSearch {
  std::vector<std::filesystem::path> dirs;
  std::vector<std::filesystem::path> preIncludes;  ///< -include FILE, read before the source
};

/// One #include line and what it resolved to.
struct IncludeEdge {
  std::filesystem::path from;  ///< the including file
  int line = 0;
  std::string spelled;       ///< "name" or <name> as written, or the macro for a computed include
  std::filesystem::path to;  ///< the file found ("" when none or computed)
  bool computed = false;     ///< #include MACRO: where it points is not known before preprocessing
};

struct IncludeScan {
  std::vector<std::filesystem::path> files;  ///< the source, pre-includes and every header found, each once
  std::vector<IncludeEdge> edges;            ///< every #include line followed, in reading order
  bool truncated = false;                    ///< stopped at kMaxFiles (a cache key is then not trusted)
  static constexpr std::size_t kMaxFiles = 4096;
};

/// Follows #include lines from `source` (and the pre-includes). Files are read
/// up to 16 MiB each; unreadable ones end the walk there.
IncludeScan scanIncludes(const std::filesystem::path& source, const IncludeSearch& search);

/// An include path in a kernel's options: -I/-isystem folders and -include files,
/// in each spelling the compile reads (-Ifoo, -I foo, --include-path=foo, ...).
struct IncludePathOption {
  std::size_t index = 0;       ///< of the option that names it (the flag where the value follows it)
  std::string value;           ///< as written
  std::filesystem::path path;  ///< against k.baseDir (the source's folder when none): what the compile reads
  bool isFile = false;         ///< -include/--pre-include: a file read before the source; else a folder
};

/// The include paths of k.options, in option order.
std::vector<IncludePathOption> includePathOptions(const KernelSpec& k);

/// The include search a compile of `k` uses: the source's folder, the toolkit's
/// include folder (`toolkitRoot`/include, when given), then the -I/-isystem
/// folders of k.options (relative ones against k.baseDir), and -include files.
IncludeSearch includeSearchFor(const KernelSpec& k, const std::filesystem::path& toolkitRoot);

/// k.options with relative include paths (-I, -isystem, -include and their long
/// forms) made absolute against k.baseDir: a compile reads the same files
/// whatever the working directory.
std::vector<std::string> absoluteIncludeOptions(const KernelSpec& k);

}  // namespace tilescope
