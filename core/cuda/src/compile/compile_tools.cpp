// Processes, files and the compile cache used by compile.cpp.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "compile/compile_detail.h"
#include "tilescope/cuda/compile.h"

extern char** environ;

namespace tilescope::cuda {

std::string cudaToolkitRoot() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    // Absolute: "-I" + a relative root would resolve against whatever folder a
    // later compile runs in (`check` from the config's folder), not where it was set.
    if (v && *v && std::filesystem::exists(v))
      return std::filesystem::absolute(v).lexically_normal().string();
  }
  return "/usr/local/cuda";
}

namespace detail {

int runProcess(const std::vector<std::string>& argv, std::string* output) {
  TempDir tmp;
  if (tmp.path.empty()) {
    *output = "could not create a private temporary folder";
    return -1;
  }
  auto outFile = (tmp.path / "output.txt").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outFile.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                                   0600);
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
  // A predictable name (/tmp/tilescope-<pid>-N) lets another user create it
  // first, or plant a symlink where the compiler writes; mkdtemp cannot be raced.
  std::error_code ec;
  std::string tmpl = (std::filesystem::temp_directory_path(ec) / "tilescope-XXXXXX").string();
  if (ec) tmpl = "/tmp/tilescope-XXXXXX";
  if (::mkdtemp(tmpl.data())) path = tmpl;
}

TempDir::~TempDir() {
  if (path.empty()) return;
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
  std::string s;
  readText(p, &s);
  return s;
}

bool readText(const std::filesystem::path& p, std::string* out) {
  std::vector<char> d;
  if (!readFile(p, &d)) return false;
  out->assign(d.begin(), d.end());
  return true;
}

std::string toolkitTool(const std::string& name) {
  auto p = std::filesystem::path(cudaToolkitRoot()) / "bin" / name;
  return std::filesystem::exists(p) ? p.string() : "";
}

}  // namespace detail
}  // namespace tilescope::cuda
