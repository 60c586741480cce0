// The compile cache: cubins keyed by everything that shapes them, in a folder
// only this user can write, each entry verified before it is loaded.
//
// Keys come in two steps. The base key hashes the compiler, its version, the
// target, the flags and the source; the dependency manifest stored under it
// (<base>.deps) lists the headers the last compile read; the entry key hashes
// the base key with those headers' current contents. Editing any header (one
// found through -I, or a toolkit header) changes the entry key: no stale cubin.
//
// Trust: the folder must be a directory owned by this user and writable by
// nobody else (a folder in /tmp that another user created, or made
// world-writable, could hold a planted cubin that TileScope would launch);
// entries must be regular files of this user (no symlinks) and match the
// content hash stored beside them (<key>.sum) — a torn or altered entry is a
// miss, never a load.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "compile/compile_detail.h"

namespace tilescope::cuda::detail {

namespace fs = std::filesystem;

namespace {

// Two independent 64-bit FNV-1a streams (128 bits): a checksum against torn or
// mixed-up entries; the folder's ownership, not the hash, keeps others out.
struct Hasher {
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(const char* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(data[i]);
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    a = (a ^ 0xff) * 0x100000001b3ull;  // separator: "ab","c" != "a","bc"
    b = (b ^ 0xff) * 0x100000001b3ull;
  }
  void add(const std::string& s) { add(s.data(), s.size()); }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
    return buf;
  }
};

/// A regular file of this user that nobody else may write, read whole; false
/// for anything else (a symlink, another owner, a FIFO).
bool readOwnFile(const fs::path& p, std::string* out) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
            (st.st_mode & 022) == 0 && st.st_size < (std::int64_t{1} << 30);
  if (ok) {
    out->assign(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < out->size()) {
      const ssize_t n = ::read(fd, out->data() + got, out->size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    ok = got == out->size();
  }
  ::close(fd);
  return ok;
}

/// Writes `data` to dir/name through a private temporary file and a rename, so
/// that a reader never sees half an entry and nothing outside `dir` is touched.
void writeEntry(const fs::path& dir, const std::string& name, const std::string& data) {
  std::string tmpl = (dir / (name + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());  // O_EXCL, mode 0600
  if (fd < 0) return;
  std::size_t put = 0;
  while (put < data.size()) {
    const ssize_t n = ::write(fd, data.data() + put, data.size() - put);
    if (n <= 0) break;
    put += static_cast<std::size_t>(n);
  }
  ::close(fd);
  std::error_code ec;
  if (put == data.size()) fs::rename(tmpl, dir / name, ec);
  if (put != data.size() || ec) fs::remove(tmpl, ec);
}

std::string entrySum(const std::string& key, const std::string& image, const std::string& log) {
  Hasher h;
  h.add(key);
  h.add(image);
  h.add(log);
  return h.hex();
}

/// The entry key: the base key and the current contents of the files in the manifest.
std::string entryKey(const std::string& base, const std::vector<std::string>& deps) {
  Hasher h;
  h.add(base);
  for (const auto& d : deps) {
    h.add(d);
    std::string text;
    std::error_code ec;
    if (readText(d, &text))
      h.add(text);
    else
      h.add("\x01<missing>");
  }
  return h.hex();
}

}  // namespace

fs::path cacheDir(std::string* why) {
  fs::path dir;
  if (const char* d = std::getenv("TILESCOPE_CACHE_DIR"); d && *d)
    dir = d;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = fs::path(x) / "tilescope/kernels";
  else if (const char* h = std::getenv("HOME"); h && *h)
    dir = fs::path(h) / ".cache/tilescope/kernels";
  if (dir.empty()) {
    // No per-user home: a shared place such as /tmp is exactly where another
    // user could plant entries, so there is no cache.
    if (why) *why = "no cache folder (HOME, XDG_CACHE_HOME and TILESCOPE_CACHE_DIR are unset)";
    return {};
  }
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  ::mkdir(dir.c_str(), 0700);  // fails harmlessly when it exists
  struct stat st {};
  std::string problem;
  if (::stat(dir.c_str(), &st) != 0)
    problem = "cannot be created";
  else if (!S_ISDIR(st.st_mode))
    problem = "is not a directory";
  else if (st.st_uid != ::geteuid())
    problem = "is owned by another user";
  else if (st.st_mode & 022)
    problem = "is writable by other users";
  if (!problem.empty()) {
    if (why) *why = "compile cache " + dir.string() + " " + problem + ": not used";
    return {};
  }
  return dir;
}

std::string cacheBaseKey(const std::vector<std::string>& parts, const fs::path& source) {
  Hasher h;
  for (const auto& p : parts) h.add(p);
  std::error_code ec;
  h.add(fs::weakly_canonical(source, ec).string());
  std::string text;
  readText(source, &text);
  h.add(text);
  return h.hex();
}

bool cacheLoad(const std::string& base, std::vector<char>* image, std::string* log) {
  const fs::path dir = cacheDir(nullptr);
  if (dir.empty()) return false;
  std::string manifest;
  if (!readOwnFile(dir / (base + ".deps"), &manifest)) return false;
  std::vector<std::string> deps;
  std::istringstream in(manifest);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) deps.push_back(line);
  const std::string key = entryKey(base, deps);
  std::string cubin, text, sum;
  if (!readOwnFile(dir / (key + ".cubin"), &cubin) || cubin.empty()) return false;
  if (!readOwnFile(dir / (key + ".log"), &text) || !readOwnFile(dir / (key + ".sum"), &sum)) return false;
  if (sum != entrySum(key, cubin, text)) return false;  // torn, altered or someone else's: a miss
  image->assign(cubin.begin(), cubin.end());
  *log = text;
  return true;
}

void cacheStore(const std::string& base, const std::vector<std::string>& deps, const std::vector<char>& image,
                const std::string& log) {
  const fs::path dir = cacheDir(nullptr);
  if (dir.empty()) return;  // a cache that cannot be used is not an error
  std::string manifest;
  for (const auto& d : deps) manifest += d + "\n";
  const std::string key = entryKey(base, deps);
  const std::string cubin(image.begin(), image.end());
  // The sum goes last: a reader that finds it finds the rest complete.
  writeEntry(dir, key + ".cubin", cubin);
  writeEntry(dir, key + ".log", log);
  writeEntry(dir, key + ".sum", entrySum(key, cubin, log));
  writeEntry(dir, base + ".deps", manifest);
}

}  // namespace tilescope::cuda::detail
