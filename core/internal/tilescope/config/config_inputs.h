// The files a config makes TileScope read: the config itself, its kernels'
// sources, the -I folders and -include files of their options, the headers their
// #include lines reach, the .py modules beside a Python source and the npy:
// tensors. Listed once, each with the JSON path that names it, for the two
// policies that walk them: trust.h (nothing outside the config's folder without
// consent) and remote.h (what a remote run copies to the host).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tilescope/config/config.h"

namespace tilescope {

struct ConfigInput {
  enum class Kind {
    config,           ///< the config file itself
    source,           ///< a kernel's source
    includeDir,       ///< an -I/-isystem folder of a kernel's options
    preInclude,       ///< an -include file of a kernel's options
    include,          ///< what an #include line reaches (path "" when no file was found)
    computedInclude,  ///< #include MACRO: where it points is not known before preprocessing
    module,           ///< a .py file beside a Python source (the kernel may import it)
    npy,              ///< an npy: tensor file
  };
  Kind kind = Kind::source;
  std::filesystem::path path;  ///< resolved against the folder it is named from, not canonical
  std::string jsonPath;  ///< "kernel.source", "reference.options[1]", "tensors.A.init", "(the config file)"
  std::string spelled;   ///< as written: the config's value, or the #include operand
  std::filesystem::path from;  ///< the including file (include kinds)
  int line = 0;                ///< the #include line (include kinds)
};

/// Every input of `config` in reading order: the config file; for the kernel,
/// then the reference kernel when reference.op is "kernel": its source, then a
/// C++ kernel's include options and the #include lines followed from it (the
/// search the compiler uses, `toolkitRoot`/include among it, includes.h), or a
/// Python kernel's .py neighbours; then the npy: tensors. The paths are what
/// the config names, unchecked: whether each may be read is the caller's policy.
std::vector<ConfigInput> configInputs(const Config& config, const std::filesystem::path& toolkitRoot);

}  // namespace tilescope
