// A `bytes` argument (docs/config.md, "Arguments passed as bytes"): a kernel
// parameter given as its raw content (a struct passed by value), inline as
// `hex` or in a `file`, with `relocations` where the replay writes device
// pointers. Every error names the JSON path; a size no kernel parameter can
// have is refused before anything is read.
#include <fstream>

#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

namespace {

std::string sizeLimitText() {
  return "the " + std::to_string(kMaxKernelParamBytes) +
         "-byte limit of a kernel's parameters (CUDA 12.1+ on Volta and later)";
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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

void parseRelocations(const Node& n, const Config& c, ArgSpec& a) {
  n.needArray();
  n.needShortArray();
  for (std::size_t i = 0; i < n.j.size(); ++i) {
    Node r = n.at(i);
    r.onlyKeys({"offset", "tensor", "delta"});
    ArgRelocation rel;
    const std::int64_t off = r.at("offset").integer();
    if (off < 0 || std::uint64_t(off) + 8 > a.bytes.size())
      r.at("offset").fail("an 8-byte pointer at offset " + std::to_string(off) + " does not fit in the " +
                          std::to_string(a.bytes.size()) + "-byte argument");
    rel.offset = std::uint32_t(off);
    rel.tensor = r.at("tensor").str(ConfigLimits::kMaxNameBytes);
    if (!c.tensor(rel.tensor)) r.at("tensor").fail("unknown tensor '" + clipForMessage(rel.tensor) + "'");
    if (r.has("delta")) rel.delta = r.at("delta").integer();
    for (const ArgRelocation& o : a.relocations)
      if (rel.offset < o.offset + 8 && o.offset < rel.offset + 8)
        r.at("offset").fail("overlaps the relocation at offset " + std::to_string(o.offset));
    a.relocations.push_back(rel);
  }
}

}  // namespace

ArgSpec parseBytesArg(const Node& n, const Config& c) {
  n.onlyKeys({"kind", "size", "hex", "file", "relocations", "ambiguous"});
  if (n.at("kind").str() != "bytes")
    n.at("kind").fail("unknown argument kind '" + clipForMessage(n.at("kind").str()) + "' (expected bytes)");
  if (c.kernel.isPython())
    n.fail("a bytes argument is for CUDA kernels; a " + c.kernel.language +
           " kernel's arguments are tensors and scalars");
  ArgSpec a;
  a.isBytes = true;
  if (n.has("size")) {
    const std::int64_t size = n.at("size").integer();
    if (size < 1 || std::uint64_t(size) > kMaxKernelParamBytes)
      n.at("size").fail(std::to_string(size) + " bytes: a parameter has 1 to " +
                        std::to_string(kMaxKernelParamBytes) + " (" + sizeLimitText() + ")");
  }
  if (n.has("hex") == n.has("file"))
    n.fail(n.has("hex") ? "both `hex` and `file`: give the bytes once"
                        : "missing `hex` or `file` (the bytes)");
  a.bytes = n.has("hex") ? parseHex(n.at("hex")) : readBytesFile(n.at("file"), c.dir);
  const Node where = n.has("hex") ? n.at("hex") : n.at("file");
  if (a.bytes.empty()) where.fail("no bytes: a parameter has at least one");
  if (a.bytes.size() > kMaxKernelParamBytes)
    where.fail(std::to_string(a.bytes.size()) + " bytes, above " + sizeLimitText());
  if (n.has("size") && std::uint64_t(n.at("size").integer()) != a.bytes.size())
    n.at("size").fail("says " + std::to_string(n.at("size").integer()) + " bytes but the content has " +
                      std::to_string(a.bytes.size()));
  if (n.has("relocations")) parseRelocations(n.at("relocations"), c, a);
  if (n.has("ambiguous")) {
    Node am = n.at("ambiguous");
    am.needArray();
    am.needShortArray();
    for (std::size_t i = 0; i < am.j.size(); ++i) {
      const std::int64_t off = am.at(i).integer();
      if (off < 0 || std::uint64_t(off) + 8 > a.bytes.size())
        am.at(i).fail("offset " + std::to_string(off) + " is not a word of the " +
                      std::to_string(a.bytes.size()) + "-byte argument");
      a.ambiguous.push_back(std::uint32_t(off));
    }
  }
  a.text = "bytes(" + std::to_string(a.bytes.size()) + ")";
  return a;
}

}  // namespace tilescope::detail
