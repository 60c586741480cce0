// .npy reading and writing (format: numpy.lib.format, versions 1.0, 2.0, 3.0).
#include "tilescope/base/npy.h"

#include <charconv>
#include <cstring>
#include <fstream>

namespace tilescope {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
// NumPy itself refuses headers over 10,000 bytes unless told otherwise; a
// version 2 header's length field could otherwise ask for 4 GiB.
constexpr std::size_t kMaxHeaderBytes = 1 << 20;
constexpr std::size_t kMaxRank = 32;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
  throw NpyError(file.string() + ": " + problem);
}

/// The value after `'key':` in the header's Python dict literal, up to the
/// matching delimiter (a quoted string, a tuple, or a bare word).
std::string dictValue(const std::string& header, const std::string& key, const std::filesystem::path& file) {
  auto k = header.find("'" + key + "'");
  if (k == std::string::npos) fail(file, "header has no '" + key + "' entry");
  auto colon = header.find(':', k);
  auto start = header.find_first_not_of(" ", colon + 1);
  if (colon == std::string::npos || start == std::string::npos) fail(file, "malformed header");
  char open = header[start];
  if (open == '\'' || open == '"') {
    auto end = header.find(open, start + 1);
    if (end == std::string::npos) fail(file, "malformed header");
    return header.substr(start + 1, end - start - 1);
  }
  if (open == '(') {
    auto end = header.find(')', start);
    if (end == std::string::npos) fail(file, "malformed header");
    return header.substr(start + 1, end - start - 1);
  }
  auto end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

std::vector<std::int64_t> parseShape(const std::string& tuple, const std::filesystem::path& file) {
  std::vector<std::int64_t> shape;
  const std::string shown = tuple.size() > 80 ? tuple.substr(0, 80) + "..." : tuple;
  std::size_t i = 0;
  while (i < tuple.size()) {
    while (i < tuple.size() && (tuple[i] == ' ' || tuple[i] == ',')) ++i;
    if (i >= tuple.size()) break;
    if (tuple[i] == '-') fail(file, "negative dimension in shape (" + shown + ")");
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(tuple.data() + i, tuple.data() + tuple.size(), v);
    if (ec != std::errc()) fail(file, "malformed shape (" + shown + ")");
    // The 'L' suffix of Python 2 longs.
    if (end < tuple.data() + tuple.size() && *end == 'L') ++end;
    shape.push_back(v);
    if (shape.size() > kMaxRank)
      fail(file, "shape has more than " + std::to_string(kMaxRank) + " dimensions");
    i = static_cast<std::size_t>(end - tuple.data());
  }
  return shape;
}

std::size_t descrSize(const std::string& descr) {
  if (descr.size() < 3 || descr.size() > 8) return 0;
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(descr.data() + 2, descr.data() + descr.size(), n);
  return ec == std::errc() && end == descr.data() + descr.size() ? n : 0;
}

}  // namespace

std::string npyShapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::int64_t NpyHeader::elements() const {
  // Dimensions are >= 0 (parseShape); a product beyond 2^62 is reported as -1.
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d == 0) return 0;
    if (n > (std::int64_t{1} << 62) / d) return -1;
    n *= d;
  }
  return n;
}

std::string npyDescr(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "<f4";
    case DType::f16:
      return "<f2";
    case DType::bf16:
      return "<u2";
    case DType::f64:
      return "<f8";
    case DType::i32:
      return "<i4";
    case DType::i64:
      return "<i8";
    case DType::u8:
      return "|u1";
    case DType::i8:
      return "|i1";
  }
  return "";
}

bool npyDescrFits(DType dtype, const std::string& descr) {
  if (descr == npyDescr(dtype)) return true;
  if (dtype == DType::bf16) return descr == "<V2" || descr == "|V2";
  // One-byte types carry no byte order; NumPy writes '|' but '<' and '=' mean the same.
  if (dtypeSize(dtype) == 1 && descr.size() == 3) return descr.substr(1) == npyDescr(dtype).substr(1);
  return false;
}

namespace {

/// Version and header length from the first bytes (at least 12 when present).
/// Returns the offset of the header text.
std::size_t prefixOf(const std::string& prefix, const std::filesystem::path& file, NpyHeader& h,
                     std::size_t& headerLen) {
  if (prefix.size() < 10 || std::memcmp(prefix.data(), kMagic, 6) != 0)
    fail(file, "not a .npy file (bad magic)");
  const auto* b = reinterpret_cast<const unsigned char*>(prefix.data());
  h.version = b[6];
  if (h.version == 1) {
    headerLen = b[8] | (b[9] << 8);
    return 10;
  }
  if (h.version == 2 || h.version == 3) {
    if (prefix.size() < 12) fail(file, "truncated header");
    headerLen = b[8] | (b[9] << 8) | (b[10] << 16) | (static_cast<std::size_t>(b[11]) << 24);
    if (headerLen > kMaxHeaderBytes)
      fail(file, "header of " + std::to_string(headerLen) + " bytes, over the limit of " +
                     std::to_string(kMaxHeaderBytes));
    return 12;
  }
  fail(file, "unsupported .npy format version " + std::to_string(h.version));
}

void parseHeaderText(const std::string& header, const std::filesystem::path& file, NpyHeader& h) {
  h.descr = dictValue(header, "descr", file);
  h.fortranOrder = dictValue(header, "fortran_order", file) == "True";
  h.shape = parseShape(dictValue(header, "shape", file), file);
  if (h.fortranOrder)
    fail(file, "fortran_order is True: only C-order arrays are supported (save np.ascontiguousarray(x))");
  if (!h.descr.empty() && h.descr[0] == '>' && descrSize(h.descr) > 1)
    fail(file,
         "big-endian data ('" + h.descr + "') is not supported (save x.astype(x.dtype.newbyteorder('<')))");
}

/// The data's size in bytes, or a clear error when the shape makes it absurd.
std::size_t dataBytes(const NpyHeader& h, const std::filesystem::path& file) {
  const std::size_t item = descrSize(h.descr);
  if (item == 0 || item > 8) fail(file, "unsupported dtype '" + h.descr + "'");
  const std::int64_t n = h.elements();
  if (n < 0) fail(file, "shape " + npyShapeText(h.shape) + " has more than 2^62 elements");
  if (static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 62) / item)
    fail(file, "shape " + npyShapeText(h.shape) + " is too large");
  return static_cast<std::size_t>(n) * item;
}

}  // namespace

NpyHeader readNpyHeader(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot open .npy file");
  std::string prefix(12, '\0');
  in.read(prefix.data(), 12);
  prefix.resize(static_cast<std::size_t>(in.gcount()));
  NpyHeader h;
  std::size_t headerLen = 0;
  const std::size_t at = prefixOf(prefix, file, h, headerLen);
  h.dataOffset = at + headerLen;
  std::string header(headerLen, '\0');
  in.seekg(static_cast<std::streamoff>(at));
  in.read(header.data(), static_cast<std::streamsize>(headerLen));
  if (static_cast<std::size_t>(in.gcount()) != headerLen) fail(file, "truncated header");
  parseHeaderText(header, file, h);
  return h;
}

NpyArray readNpy(const std::filesystem::path& file) {
  NpyArray a;
  a.header = readNpyHeader(file);
  const std::size_t bytes = dataBytes(a.header, file);
  // Compare with the file's size before allocating: a shape can promise terabytes.
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec || size < a.header.dataOffset || size - a.header.dataOffset < bytes)
    fail(file, "truncated data: expected " + std::to_string(bytes) + " bytes, found " +
                   std::to_string(ec || size < a.header.dataOffset ? 0 : size - a.header.dataOffset));
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(a.header.dataOffset));
  a.data.resize(bytes);
  in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(bytes));
  if (static_cast<std::size_t>(in.gcount()) != bytes)
    fail(file, "truncated data: expected " + std::to_string(bytes) + " bytes, found " +
                   std::to_string(in.gcount()));
  return a;
}

NpyArray parseNpy(const std::string& bytes, const std::string& label) {
  const std::filesystem::path file(label);
  NpyArray a;
  std::size_t headerLen = 0;
  const std::size_t at = prefixOf(bytes.substr(0, 12), file, a.header, headerLen);
  if (bytes.size() - at < headerLen) fail(file, "truncated header");
  a.header.dataOffset = at + headerLen;
  parseHeaderText(bytes.substr(at, headerLen), file, a.header);
  const std::size_t n = dataBytes(a.header, file);
  if (bytes.size() - a.header.dataOffset < n)
    fail(file, "truncated data: expected " + std::to_string(n) + " bytes, found " +
                   std::to_string(bytes.size() - a.header.dataOffset));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(a.header.dataOffset),
                bytes.begin() + static_cast<std::ptrdiff_t>(a.header.dataOffset + n));
  return a;
}

void writeNpy(const std::filesystem::path& file, DType dtype, const std::vector<std::int64_t>& shape,
              const void* data, std::size_t bytes) {
  // Python tuple syntax: "()" for a scalar, "(3,)" for rank 1, "(3, 4)" otherwise.
  std::string tuple;
  for (std::size_t i = 0; i < shape.size(); ++i) tuple += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) tuple += ",";
  std::string header =
      "{'descr': '" + npyDescr(dtype) + "', 'fortran_order': False, 'shape': (" + tuple + "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary; end with '\n'.
  bool v2 = header.size() + 11 > 65535;
  std::size_t prefix = v2 ? 12 : 10;
  std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::ofstream out(file, std::ios::binary);
  if (!out) fail(file, "cannot write .npy file");
  out.write(kMagic, 6);
  out.put(static_cast<char>(v2 ? 2 : 1)).put(0);
  std::size_t len = header.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) fail(file, "write failed");
}

}  // namespace tilescope
