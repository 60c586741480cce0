// What a config may make TileScope do without the user's explicit consent.
//
// Opening someone else's config must not run their programs or read files
// outside the config's folder into a report (docs/security.md). A config can
// do both through a few fields: `baseline.command` (a shell command), compiler
// options that name a program or write files (`-ccbin`, `-Xcompiler -wrapper`,
// `-time FILE`, ...), include paths, sources and .npy files that point
// elsewhere. These functions find them; the verbs refuse them unless the user
// opts in (`--allow-commands`, `--allow-outside-paths`), and `check` never runs
// them at all.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tilescope/config/config.h"

namespace tilescope {

/// One thing a config asks for that needs the user's consent.
struct TrustIssue {
  std::string path;  ///< JSON path: baseline.command, kernel.options[2], kernel.source
  std::string what;  ///< what it would do, for a person to judge
};

/// What is risky about the compiler option at `options[i]` ("" when TileScope
/// knows it to be harmless: optimisation, diagnostics, -D/-U, -std, ...). An
/// option whose value is the next element consumes it: `*consumed` is set to
/// the number of elements looked at (1 or 2). Include paths (-I, -isystem,
/// -include) are harmless here: resolveIncludePaths() checks where they point.
std::string compilerOptionRisk(const std::vector<std::string>& options, std::size_t i, std::size_t* consumed);

/// Programs the config would run: a command baseline and every compiler option
/// of the kernel and of a reference kernel that is not known to be harmless.
std::vector<TrustIssue> commandIssues(const Config& config);

/// The folders a config may read from without --allow-outside-paths: its own
/// folder (symbolic links resolved) and the CUDA toolkit's (`toolkitRoot`,
/// "" = none).
std::vector<std::filesystem::path> trustedRoots(const Config& config,
                                                const std::filesystem::path& toolkitRoot);

/// Whether `file` (resolved through symbolic links) lies inside one of `roots`.
bool insideRoots(const std::filesystem::path& file, const std::vector<std::filesystem::path>& roots);

/// Files and folders the config would read outside trustedRoots(config,
/// toolkitRoot): kernel sources, -I / -isystem / -include paths in the options,
/// the files the sources' #include lines name (includes.h; an #include through
/// a macro cannot be checked and counts as outside), npy: inputs and expected results.
std::vector<TrustIssue> pathIssues(const Config& config, const std::filesystem::path& toolkitRoot);

/// "kernel.options[0]: -ccbin names ...; baseline.command: ..." for messages.
std::string describeIssues(const std::vector<TrustIssue>& issues);

}  // namespace tilescope
