// Internal helpers of compile*.cpp (not a public header).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace tilescope::cuda::detail {

/// The most of a compiler's log TileScope keeps (its start and its end).
inline constexpr std::size_t kMaxCompileLogBytes = std::size_t{1} << 20;

/// `log` cut to kMaxCompileLogBytes: its first three quarters and its last
/// quarter, with a line saying how much was cut and why.
std::string capCompileLog(std::string log);

/// Runs argv[0] with the arguments (no shell), stdout and stderr merged into
/// `output` (cut as capCompileLog cuts, while it is read).
/// Returns the exit status, or -1 when the program could not be started.
int runProcess(const std::vector<std::string>& argv, std::string* output);

/// A fresh private temporary folder (mkdtemp: an unpredictable name, mode 0700,
/// created by us or not at all), removed by the destructor. `path` is empty
/// when none could be made.
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
bool readText(const std::filesystem::path& p, std::string* out);

/// The executable `name` in the CUDA toolkit's bin folder, or "" when absent.
std::string toolkitTool(const std::string& name);

// compile_cache.cpp (see there for the key and the checks).
/// The cache folder, or "" when there is no safe one (*why says why, when given).
std::filesystem::path cacheDir(std::string* why);
/// The first step of a key: compiler, version, target and flags (`parts`) and the source.
std::string cacheBaseKey(const std::vector<std::string>& parts, const std::filesystem::path& source);
/// Loads the verified entry for `base` and the current contents of the headers
/// its manifest lists; false on a miss (or anything suspicious).
bool cacheLoad(const std::string& base, std::vector<char>* image, std::string* log);
/// Stores an entry and its manifest: `deps` are the files the compile read.
void cacheStore(const std::string& base, const std::vector<std::string>& deps, const std::vector<char>& image,
                const std::string& log);

}  // namespace tilescope::cuda::detail
