// Shared by the folder harnesses (fuzz_triage_folder, fuzz_capture_folder): an
// input describes a small file tree, one item a line, built in a fresh scratch
// folder per input and removed after it:
//
//   d PATH           a folder
//   f PATH TEXT      a file holding TEXT (the rest of the line; \n \t \\ \xHH escapes)
//   z PATH BYTES     a file of BYTES zero bytes (sparse, at most 8 MiB: the size limits)
//   l PATH TARGET    a symbolic link to TARGET as written (".", "..", "/", "../x", "a/b")
//   a PATH           a command-line argument (the triage harness)
//
// PATH is relative, of plain names (no "", "." or ".."): everything the
// harness writes stays in the scratch folder; only a link's target may point
// anywhere, which is what the APIs must not follow out.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace tilescope::fuzz {

/// The tree and arguments an input describes; build() makes it under a folder.
struct FolderSpec {
  struct Item {
    char kind = 'f';
    std::string path, text;
    std::uintmax_t bytes = 0;
  };
  std::vector<Item> items;
  std::vector<std::string> args;

  static constexpr std::size_t kMaxItems = 64;
  static constexpr std::size_t kMaxDepth = 10;
  static constexpr std::uintmax_t kMaxZeroBytes = 8u << 20;

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  static std::string unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\\' || i + 1 == s.size()) {
        out += s[i];
        continue;
      }
      const char c = s[++i];
      if (c == 'n') {
        out += '\n';
      } else if (c == 't') {
        out += '\t';
      } else if (c == 'x' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
        out += char(hex(s[i + 1]) * 16 + hex(s[i + 2]));
        i += 2;
      } else {
        out += c;
      }
    }
    return out;
  }
  /// A relative path of plain names, or "" when the input's path is not one.
  static std::string plainPath(std::string_view p) {
    std::size_t depth = 0;
    for (std::size_t start = 0; start <= p.size();) {
      std::size_t end = p.find('/', start);
      if (end == std::string_view::npos) end = p.size();
      const std::string_view name = p.substr(start, end - start);
      if (name.empty() || name == "." || name == ".." || name.size() > 100 || ++depth > kMaxDepth) return "";
      if (name.find('\0') != std::string_view::npos) return "";
      start = end + 1;
    }
    return std::string(p);
  }

  static FolderSpec parse(std::string_view text) {
    FolderSpec spec;
    for (std::size_t start = 0; start < text.size() && spec.items.size() < kMaxItems;) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = text.substr(start, end - start);
      start = end + 1;
      if (line.size() < 3 || line[1] != ' ') continue;
      const std::string_view rest = line.substr(2);
      const std::size_t sp = rest.find(' ');
      Item it;
      it.kind = line[0];
      it.path = plainPath(rest.substr(0, sp));
      const std::string_view arg = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
      if (it.path.empty()) continue;
      switch (it.kind) {
        case 'd':
          break;
        case 'f':
        case 'l':
          it.text = unescape(arg);
          break;
        case 'z':
          it.bytes =
              std::min<std::uintmax_t>(std::strtoull(std::string(arg).c_str(), nullptr, 10), kMaxZeroBytes);
          break;
        case 'a':
          spec.args.push_back(it.path);
          continue;
        default:
          continue;
      }
      spec.items.push_back(std::move(it));
    }
    return spec;
  }

  /// Makes the tree under `root` (existing); an item that cannot be made (a file
  /// where a folder is wanted, a path through a link) is left out.
  void build(const std::filesystem::path& root) const {
    namespace fs = std::filesystem;
    for (const Item& it : items) {
      const fs::path p = root / it.path;
      std::error_code ec;
      // Never write through a link: every parent must be a real folder made here.
      bool plain = true;
      for (fs::path q = p.parent_path(); plain && q != root && q.has_relative_path(); q = q.parent_path())
        plain = !fs::is_symlink(fs::symlink_status(q, ec));
      if (!plain) continue;
      fs::create_directories(p.parent_path(), ec);
      if (fs::exists(fs::symlink_status(p, ec))) continue;
      if (it.kind == 'd') {
        fs::create_directory(p, ec);
      } else if (it.kind == 'l') {
        fs::create_symlink(it.text.empty() ? "." : it.text, p, ec);
      } else if (FILE* f = std::fopen(p.c_str(), "wb")) {
        if (it.kind == 'f') std::fwrite(it.text.data(), 1, it.text.size(), f);
        std::fclose(f);
        if (it.kind == 'z') fs::resize_file(p, it.bytes, ec);
      }
    }
  }
};

/// A fresh folder per input, removed (links not followed) when it goes.
class Scratch {
 public:
  Scratch() {
    static const std::filesystem::path base = [] {
      char pattern[] = "/tmp/tilescope-fuzz-folder-XXXXXX";
      const char* made = mkdtemp(pattern);
      if (!made) std::abort();
      return std::filesystem::path(made);
    }();
    static unsigned long counter = 0;
    m_root = base / std::to_string(counter++);
    std::error_code ec;
    std::filesystem::create_directories(m_root, ec);
    if (ec) std::abort();
    m_root = std::filesystem::canonical(m_root);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(m_root, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::filesystem::path& root() const { return m_root; }

 private:
  std::filesystem::path m_root;
};

/// Whether `p` (resolved through links, as far as it exists) lies in `folder` (canonical).
inline bool resolvesInside(const std::filesystem::path& p, const std::filesystem::path& folder) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(p, ec);
  if (ec) return false;
  const std::filesystem::path rel = c.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace tilescope::fuzz
