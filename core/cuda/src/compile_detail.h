// Internal helpers of compile*.cpp (not a public header).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tilescope::cuda::detail {

/// Runs argv[0] with the arguments (no shell), stdout and stderr merged into `output`.
/// Returns the exit status, or -1 when the program could not be started.
int runProcess(const std::vector<std::string>& argv, std::string* output);

/// A fresh private temporary folder, removed by the destructor.
struct TempDir {
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path path;
};

bool readFile(const std::filesystem::path& p, std::vector<char>* out);
bool writeFile(const std::filesystem::path& p, const std::vector<char>& data);
std::string readText(const std::filesystem::path& p);

/// The executable `name` in the CUDA toolkit's bin folder, or "" when absent.
std::string toolkitTool(const std::string& name);

/// Cache of compiled images keyed by a hash of everything that shapes them.
std::filesystem::path cacheDir();
/// Hex digest of `parts` plus the text of the source and the headers it includes
/// with #include "..." (resolved against the source's folder and `includeDirs`).
std::string cacheKey(const std::filesystem::path& source, const std::vector<std::string>& includeDirs,
                     const std::vector<std::string>& parts);
bool cacheLoad(const std::string& key, std::vector<char>* image, std::string* log);
void cacheStore(const std::string& key, const std::vector<char>& image, const std::string& log);

}  // namespace tilescope::cuda::detail
