// Processes, files and the compile cache used by compile.cpp.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
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

namespace {

std::string cutLine(std::size_t cut) {
  return "\n[... " + std::to_string(cut) + " bytes of the compiler's output cut: TileScope keeps " +
         std::to_string(kMaxCompileLogBytes >> 20) + " MiB of a log, its start and its end ...]\n";
}

}  // namespace

std::string capCompileLog(std::string log) {
  if (log.size() <= kMaxCompileLogBytes) return log;
  const std::size_t tail = kMaxCompileLogBytes / 4, head = kMaxCompileLogBytes - tail;
  return log.substr(0, head) + cutLine(log.size() - head - tail) + log.substr(log.size() - tail);
}

int runProcess(const std::vector<std::string>& argv, std::string* output) {
  // A pipe, read as it fills: a source that makes the compiler print a warning
  // per element wrote a 1.2 GB log (docs/security.md, "Denial of service"). The start and the end (where
  // the error usually is) are kept, capCompileLog's way; the middle is counted.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    *output = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    *output = "could not start " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  const std::size_t tailBytes = kMaxCompileLogBytes / 4, headBytes = kMaxCompileLogBytes - tailBytes;
  std::string head, tail;
  std::size_t total = 0;
  char buf[65536];
  for (;;) {
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    total += std::size_t(got);
    std::size_t used = std::min(std::size_t(got), headBytes - std::min(headBytes, head.size()));
    head.append(buf, used);
    tail.append(buf + used, std::size_t(got) - used);
    if (tail.size() > 2 * tailBytes) tail.erase(0, tail.size() - tailBytes);
  }
  ::close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (tail.size() > tailBytes) tail.erase(0, tail.size() - tailBytes);
  const std::size_t cut = total - head.size() - tail.size();
  *output = cut == 0 ? head + tail : head + cutLine(cut) + tail;
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
