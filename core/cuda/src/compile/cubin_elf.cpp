// Reads resource usage from a cubin's ELF sections, without a GPU or cuobjdump.
//
// A cubin is a 64-bit little-endian ELF. Per-kernel facts sit in:
//  - `.nv.info`: records {u8 format, u8 attribute, u16 size|value, payload};
//    REGCOUNT / FRAME_SIZE / MIN_STACK_SIZE carry {u32 symbol index, u32 value};
//  - `.nv.info.<kernel>`: MAX_THREADS or REQNTID (three u32, from __launch_bounds__ / maxntid / reqntid);
//  - `.nv.shared.<kernel>`: NOBITS, its size is the static shared memory. From
//    sm_90 on (when a `.nv.shared.reserved.*` section exists) ptxas places the
//    1 KiB of system-reserved shared memory inside it, so the kernel's own static
//    shared memory is the size minus 1024 (checked against ptxas -v on CUDA 13).
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "tilescope/capture/kernel_signature.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {
namespace {

constexpr std::uint8_t kFmtNval = 1, kFmtBval = 2, kFmtHval = 3, kFmtSval = 4;
// REQNTID (.reqntid, what Triton emits) fixes the block size exactly: it is the maximum too.
constexpr std::uint8_t kAttrMaxThreads = 0x05, kAttrReqNtid = 0x10, kAttrFrameSize = 0x11,
                       kAttrMinStackSize = 0x12, kAttrRegCount = 0x2f;
constexpr std::uint32_t kShtSymtab = 2, kShtNobits = 8;
constexpr std::int64_t kReservedSmemSm90 = 1024;

struct Section {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t offset = 0, size = 0, entsize = 0;
  std::uint32_t link = 0;
};

template <class T>
bool readAt(const std::vector<char>& d, std::uint64_t off, T* v) {
  if (off + sizeof(T) > d.size()) return false;
  std::memcpy(v, d.data() + off, sizeof(T));
  return true;
}

std::string cstrAt(const std::vector<char>& d, std::uint64_t off) {
  std::string s;
  while (off < d.size() && d[off] != '\0') s.push_back(d[off++]);
  return s;
}

bool readSections(const std::vector<char>& d, std::vector<Section>* out, std::string* err) {
  if (d.size() < 64 || std::memcmp(d.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0) {
    *err = "not an ELF image";
    return false;
  }
  if (d[4] != 2) {
    *err = "not a 64-bit ELF (cubins are ELF64)";
    return false;
  }
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  readAt(d, 0x28, &shoff);
  readAt(d, 0x3a, &shentsize);
  readAt(d, 0x3c, &shnum);
  readAt(d, 0x3e, &shstrndx);
  if (shentsize < 64 || shoff + std::uint64_t(shnum) * shentsize > d.size() || shstrndx >= shnum) {
    *err = "truncated ELF section table";
    return false;
  }
  std::vector<std::uint32_t> nameOffsets;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::uint64_t o = shoff + std::uint64_t(i) * shentsize;
    Section s;
    std::uint32_t nameOff = 0;
    readAt(d, o, &nameOff);
    readAt(d, o + 4, &s.type);
    readAt(d, o + 24, &s.offset);
    readAt(d, o + 32, &s.size);
    readAt(d, o + 40, &s.link);
    readAt(d, o + 56, &s.entsize);
    nameOffsets.push_back(nameOff);
    out->push_back(s);
  }
  std::uint64_t strOff = (*out)[shstrndx].offset;
  for (std::size_t i = 0; i < out->size(); ++i) (*out)[i].name = cstrAt(d, strOff + nameOffsets[i]);
  return true;
}

// Symbol index -> name, from .symtab and its string table.
std::map<std::uint32_t, std::string> readSymbols(const std::vector<char>& d,
                                                 const std::vector<Section>& secs) {
  std::map<std::uint32_t, std::string> syms;
  for (const auto& s : secs) {
    if (s.type != kShtSymtab || s.entsize < 24 || s.link >= secs.size()) continue;
    std::uint64_t n = s.size / s.entsize;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint32_t nameOff = 0;
      if (!readAt(d, s.offset + i * s.entsize, &nameOff)) break;
      syms[std::uint32_t(i)] = cstrAt(d, secs[s.link].offset + nameOff);
    }
  }
  return syms;
}

// Walks the records of one .nv.info section.
template <class F>
void forEachRecord(const std::vector<char>& d, const Section& s, F&& f) {
  std::uint64_t p = s.offset, end = std::min<std::uint64_t>(s.offset + s.size, d.size());
  while (p + 4 <= end) {
    std::uint8_t fmt = std::uint8_t(d[p]), attr = std::uint8_t(d[p + 1]);
    std::uint16_t v = 0;
    readAt(d, p + 2, &v);
    p += 4;
    if (fmt == kFmtSval) {
      if (p + v > end) break;
      f(attr, fmt, std::uint64_t(0), p, std::uint64_t(v));
      p += v;
    } else if (fmt == kFmtHval || fmt == kFmtBval || fmt == kFmtNval) {
      f(attr, fmt, std::uint64_t(v), std::uint64_t(0), std::uint64_t(0));
    } else {
      break;  // unknown format: the rest cannot be framed
    }
  }
}

int smFromHeader(const std::vector<char>& d) {
  std::uint32_t flags = 0;
  readAt(d, 0x30, &flags);
  // EI_ABIVERSION >= 8 (CUDA 12.x+ toolchains) moved the SM number to bits 8..15.
  return std::uint8_t(d[8]) >= 8 ? int((flags >> 8) & 0xff) : int(flags & 0xff);
}

CubinInfo inspectElf(const std::vector<char>& d) {
  CubinInfo info;
  std::vector<Section> secs;
  if (!readSections(d, &secs, &info.error)) return info;
  info.smVersion = smFromHeader(d);
  auto syms = readSymbols(d, secs);
  std::map<std::string, CubinKernelInfo> kernels;
  bool reservedSmem = false;
  for (const auto& s : secs)
    if (s.name.rfind(".nv.shared.reserved", 0) == 0) reservedSmem = true;
  for (const auto& s : secs) {
    if (s.name.rfind(".text.", 0) == 0) kernels[s.name.substr(6)].name = s.name.substr(6);
  }
  for (const auto& s : secs) {
    if (s.name.rfind(".nv.shared.", 0) == 0 && s.type == kShtNobits) {
      auto it = kernels.find(s.name.substr(11));
      if (it == kernels.end()) continue;
      std::int64_t size = std::int64_t(s.size);
      if (reservedSmem && size >= kReservedSmemSm90) size -= kReservedSmemSm90;
      it->second.smemStatic = size;
    } else if (s.name == ".nv.info") {
      forEachRecord(
          d, s, [&](std::uint8_t attr, std::uint8_t, std::uint64_t, std::uint64_t p, std::uint64_t n) {
            if (n < 8 || (attr != kAttrRegCount && attr != kAttrFrameSize && attr != kAttrMinStackSize))
              return;
            std::uint32_t sym = 0, value = 0;
            readAt(d, p, &sym);
            readAt(d, p + 4, &value);
            auto name = syms.find(sym);
            if (name == syms.end()) return;
            auto it = kernels.find(name->second);
            if (it == kernels.end()) return;
            if (attr == kAttrRegCount) it->second.regs = int(value);
            if (attr == kAttrFrameSize) it->second.frameBytes = value;
            if (attr == kAttrMinStackSize) it->second.minStackBytes = value;
          });
    } else if (s.name.rfind(".nv.info.", 0) == 0) {
      auto it = kernels.find(s.name.substr(9));
      if (it == kernels.end()) continue;
      forEachRecord(d, s,
                    [&](std::uint8_t attr, std::uint8_t, std::uint64_t, std::uint64_t p, std::uint64_t n) {
                      if ((attr != kAttrMaxThreads && attr != kAttrReqNtid) || n < 12) return;
                      std::uint32_t x = 0, y = 0, z = 0;
                      readAt(d, p, &x);
                      readAt(d, p + 4, &y);
                      readAt(d, p + 8, &z);
                      it->second.maxThreads = int(std::uint64_t(x) * std::max(1u, y) * std::max(1u, z));
                    });
    }
  }
  for (auto& [name, k] : kernels) {
    if (k.smemStatic < 0) k.smemStatic = 0;  // no .nv.shared.<kernel>: no static shared memory
    info.kernels.push_back(k);
  }
  info.valid = true;
  return info;
}

}  // namespace

const CubinKernelInfo* CubinInfo::find(const std::string& symbol) const {
  for (const auto& k : kernels)
    if (k.name == symbol) return &k;
  return nullptr;
}

CubinInfo inspectCubin(const std::vector<char>& image, int preferredSm) {
  if (image.size() >= 4 && std::memcmp(image.data(),
                                       "\x7f"
                                       "ELF",
                                       4) == 0)
    return inspectElf(image);
  // A fatbin: look for embedded (uncompressed) ELF images and take the one for
  // the preferred architecture, else the first that parses.
  CubinInfo best;
  best.error = "no uncompressed cubin found in the fatbin";
  for (std::size_t pos = 0; pos + 4 <= image.size(); ++pos) {
    if (std::memcmp(image.data() + pos,
                    "\x7f"
                    "ELF",
                    4) != 0)
      continue;
    std::vector<char> sub(image.begin() + std::ptrdiff_t(pos), image.end());
    CubinInfo info = inspectElf(sub);
    if (!info.valid) continue;
    if (!best.valid || info.smVersion == preferredSm) best = info;
    if (info.smVersion == preferredSm) break;
  }
  return best;
}

namespace {
// The base name of a demangled C++ function: "ns::gemm<64>(float*, int)" -> "gemm",
// also returning the qualified name without parameters ("ns::gemm<64>").
std::pair<std::string, std::string> demangledNames(const std::string& symbol) {
  const std::string full = demangleSymbol(symbol);
  if (full.empty()) return {"", ""};
  const std::string qualified = kernelBaseName(full);
  std::string base = qualified.substr(0, qualified.find('<'));
  auto colon = base.rfind("::");
  if (colon != std::string::npos) base = base.substr(colon + 2);
  return {base, qualified};
}
}  // namespace

std::string matchEntry(const std::string& entry, const std::vector<std::string>& symbols) {
  for (const auto& s : symbols)
    if (s == entry) return s;
  for (const auto& s : symbols) {
    auto [base, qualified] = demangledNames(s);
    if (!base.empty() && (entry == base || entry == qualified)) return s;
  }
  return "";
}

}  // namespace tilescope::cuda
