// nvcc's command line with no text of the config on it (docs/security.md, "nvcc and /bin/sh").
//
// nvcc runs its sub-steps (the host preprocessor, cicc, ptxas) through /bin/sh
// with each argument in double quotes, so `$(...)` or backticks in a define, an
// option, or the source's file or folder name run as commands. Everything a
// config controls is therefore moved off the command line:
//   - defines (kernel.defines and -D/-U options) go into a generated header
//     passed with -include, after their names are checked as C identifiers;
//   - the source is compiled through a generated wrapper in the private
//     temporary folder that #includes it by its real path (so line info, error
//     messages and "quoted" includes still name the real file);
//   - -include files become #include lines of the same header;
//   - include folders whose path holds a character the shell could read are
//     reached through a symlink of a safe name in the temporary folder;
//   - any other option must be made of harmless characters only.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/config/config.h"

namespace tilescope::cuda::detail {

/// What compiling one source with nvcc needs, all inside `tmp`.
struct NvccPlan {
  std::vector<std::string> argv;  ///< nvcc and its arguments (no -o, -MD, input: the caller adds them)
  std::string header;             ///< tmp/tilescope_defines.h: the defines and -include files
  std::string wrapper;            ///< tmp/kernel.cu: #include of the real source
  /// Symlinks to create: {link in tmp, the folder it stands for}.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> links;
  std::string error;  ///< non-empty: the compile must not run (says which text and why)
};

/// Whether nvcc may put `arg` on a /bin/sh line as it is: letters, digits and
/// `_ - + = . , / : @ %` only.
bool shellInert(const std::string& arg);

/// Whether `name` is a macro name: a C identifier, optionally with a parameter
/// list of identifiers ("F(a,b)").
bool isMacroName(const std::string& name);

/// Builds the plan. `options` have absolute include paths already
/// (absoluteIncludeOptions); `includeDirs` are the -I folders TileScope adds
/// (the source's folder first). Pure: it touches no file.
NvccPlan planNvcc(const std::string& nvcc, const std::string& arch, const std::filesystem::path& source,
                  const std::vector<std::pair<std::string, DefineValue>>& defines,
                  const std::vector<std::string>& options, const std::vector<std::string>& includeDirs,
                  const std::filesystem::path& tmp);

/// Writes the plan's header, wrapper and symlinks into tmp; "" or why not.
std::string materialize(const NvccPlan& plan, const std::filesystem::path& tmp);

/// `text` (a log, a dependency path) with the plan's symlinks replaced by the
/// folders they stand for and the wrapper's path by `sourceShown`.
std::string unmapPaths(std::string text, const NvccPlan& plan, const std::filesystem::path& tmp,
                       const std::string& sourceShown);

}  // namespace tilescope::cuda::detail
