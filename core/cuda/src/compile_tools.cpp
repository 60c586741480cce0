// Processes, files and the compile cache used by compile.cpp.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "compile_detail.h"
#include "tilescope/cuda/compile.h"

extern char** environ;

namespace tilescope::cuda {

std::string cudaToolkitRoot() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (v && *v && std::filesystem::exists(v)) return v;
  }
  return "/usr/local/cuda";
}

namespace detail {

int runProcess(const std::vector<std::string>& argv, std::string* output) {
  TempDir tmp;
  auto outFile = (tmp.path / "output.txt").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *output = "could not start " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *output = readText(outFile);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path = std::filesystem::temp_directory_path() /
         ("tilescope-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(path);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

bool readFile(const std::filesystem::path& p, std::vector<char>* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

bool writeFile(const std::filesystem::path& p, const std::vector<char>& data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), std::streamsize(data.size()));
  return bool(out);
}

std::string readText(const std::filesystem::path& p) {
  std::vector<char> d;
  if (!readFile(p, &d)) return "";
  return std::string(d.begin(), d.end());
}

std::string toolkitTool(const std::string& name) {
  auto p = std::filesystem::path(cudaToolkitRoot()) / "bin" / name;
  return std::filesystem::exists(p) ? p.string() : "";
}

std::filesystem::path cacheDir() {
  if (const char* d = std::getenv("TILESCOPE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "tilescope/kernels";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache/tilescope/kernels";
  return std::filesystem::temp_directory_path() / "tilescope-kernels";
}

namespace {
// Two independent 64-bit FNV-1a streams: 128 bits make collisions negligible.
struct Hasher {
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string& s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    a = (a ^ 0xff) * 0x100000001b3ull;  // separator: "ab","c" != "a","bc"
    b = (b ^ 0xff) * 0x100000001b3ull;
  }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
    return buf;
  }
};

void hashWithIncludes(const std::filesystem::path& file, const std::vector<std::string>& dirs, Hasher* h,
                      std::set<std::string>* seen) {
  static const std::regex inc(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::string key = std::filesystem::weakly_canonical(file).string();
  if (!seen->insert(key).second || seen->size() > 256) return;
  std::string text = readText(file);
  h->add(key);
  h->add(text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, inc)) continue;
    std::vector<std::filesystem::path> candidates{file.parent_path() / m[1].str()};
    for (const auto& d : dirs) candidates.push_back(std::filesystem::path(d) / m[1].str());
    for (const auto& c : candidates) {
      if (std::filesystem::is_regular_file(c)) {
        hashWithIncludes(c, dirs, h, seen);
        break;
      }
    }
  }
}
}  // namespace

std::string cacheKey(const std::filesystem::path& source, const std::vector<std::string>& includeDirs,
                     const std::vector<std::string>& parts) {
  Hasher h;
  for (const auto& p : parts) h.add(p);
  std::set<std::string> seen;
  hashWithIncludes(source, includeDirs, &h, &seen);
  return h.hex();
}

bool cacheLoad(const std::string& key, std::vector<char>* image, std::string* log) {
  auto dir = cacheDir();
  if (!readFile(dir / (key + ".cubin"), image) || image->empty()) return false;
  *log = readText(dir / (key + ".log"));
  return true;
}

void cacheStore(const std::string& key, const std::vector<char>& image, const std::string& log) {
  std::error_code ec;
  auto dir = cacheDir();
  std::filesystem::create_directories(dir, ec);
  if (ec) return;  // a cache that cannot be written is not an error
  // Write under a temporary name and rename, so concurrent sweep workers never
  // read a half-written cubin.
  auto tmp = dir / (key + "." + std::to_string(::getpid()) + ".tmp");
  writeFile(tmp, std::vector<char>(log.begin(), log.end()));
  std::filesystem::rename(tmp, dir / (key + ".log"), ec);
  writeFile(tmp, image);
  std::filesystem::rename(tmp, dir / (key + ".cubin"), ec);
}

}  // namespace detail
}  // namespace tilescope::cuda
