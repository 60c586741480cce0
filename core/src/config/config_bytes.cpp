// A `bytes` argument (docs/config.md, "Arguments passed as bytes"): a kernel
// parameter given as its raw content (a struct passed by value), inline as
// `hex` or in a `file`, with `relocations` where the replay writes device
// pointers. Every error names the JSON path; a size no kernel parameter can
// have is refused before anything is read.
#include <fstream>

#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

std::string sizeLimitText() {
  return "the " + std::to_string(kMaxKernelParamBytes) +
         "-byte limit of a kernel's parameters (CUDA 12.1+ on Volta and later)";
}

namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::vector<std::uint8_t> parseHex(const Node& n) {
  const std::string s = n.str(2 * kMaxKernelParamBytes + 2);
  if (s.size() % 2 != 0) n.fail("an odd number of hex digits (" + std::to_string(s.size()) + ")");
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = hexDigit(s[2 * i]), lo = hexDigit(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      n.fail("'" + clipForMessage(s.substr(2 * i, 2)) + "' at character " + std::to_string(2 * i) +
             " is not a hex byte");
    out[i] = std::uint8_t(hi * 16 + lo);
  }
  return out;
}

std::vector<std::uint8_t> readBytesFile(const Node& n, const std::filesystem::path& dir) {
  const std::string rel = n.str();
  if (rel.empty()) n.fail("empty path");
  std::filesystem::path p(rel);
  if (p.is_relative()) p = (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) n.fail("'" + p.string() + "' is not a file");
  const std::uintmax_t size = std::filesystem::file_size(p, ec);
  if (ec) n.fail("cannot read '" + p.string() + "': " + ec.message());
  if (size > kMaxKernelParamBytes)
    n.fail("'" + p.string() + "' holds " + std::to_string(size) + " bytes, above " + sizeLimitText());
  std::vector<std::uint8_t> out(size);
  std::ifstream in(p, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(out.data()), std::streamsize(size)))
    n.fail("cannot read '" + p.string() + "'");
  return out;
}

}  // namespace tilescope::detail
