// writeFileAtomically: a temporary file opened O_EXCL beside the target, written
// whole, then renamed over it.
#include "tilescope/base/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace tilescope {

void writeFileAtomically(const std::filesystem::path& file, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Not a regular file (-o /dev/stdout, a pipe): write through, there is nothing to replace.
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec)) {
    std::ofstream out(file, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) throw std::runtime_error(file.string() + ": cannot write");
    return;
  }
  // A link is followed: the file it names gets the new content, the link stays.
  const fs::path target = fs::is_symlink(file, ec) ? fs::canonical(file, ec) : file;
  static std::atomic<unsigned> counter{0};
  const fs::path tmp =
      target.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  // O_EXCL: never through a file or link someone placed under that name.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot write (" + std::strerror(errno) + ")");
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(file.string() + ": write failed (" + why + ")");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(file.string() + ": write failed (" + why + ")");
  }
}

}  // namespace tilescope
