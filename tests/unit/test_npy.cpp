// .npy reading (tests/data/npy, written by make_fixtures.py without NumPy) and
// write/read round trips for every dtype.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "tilescope/base/npy.h"
#include "tilescope/config/config.h"

namespace {

using namespace tilescope;

const std::filesystem::path kNpy = std::filesystem::path(TILESCOPE_TEST_DATA) / "npy";

template <class T>
T element(const NpyArray& a, std::size_t i) {
  T v;
  std::memcpy(&v, a.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::string errorOf(const std::filesystem::path& file) {
  try {
    readNpy(file);
  } catch (const NpyError& e) {
    return e.what();
  }
  ADD_FAILURE() << file << " read without an error";
  return "";
}

std::filesystem::path tempFile(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("tilescope_test_npy_" + std::to_string(::getpid()) + "_" + name);
}

TEST(Npy, ReadsVersion1F32) {
  NpyArray a = readNpy(kNpy / "a_4x8_f32.npy");
  EXPECT_EQ(a.header.version, 1);
  EXPECT_EQ(a.header.descr, "<f4");
  EXPECT_EQ(a.header.shape, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(a.header.dataOffset % 64, 0u);
  ASSERT_EQ(a.data.size(), 32u * 4u);
  for (std::size_t i = 0; i < 32; ++i) EXPECT_FLOAT_EQ(element<float>(a, i), 0.5f * static_cast<float>(i));
}

TEST(Npy, ReadsVersion2And3) {
  NpyArray v2 = readNpy(kNpy / "v2_3_f64.npy");
  EXPECT_EQ(v2.header.version, 2);
  EXPECT_EQ(v2.header.shape, std::vector<std::int64_t>{3});
  for (std::size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(element<double>(v2, i), static_cast<double>(i) - 1.25);
  NpyArray v3 = readNpy(kNpy / "v3_2x2_i32.npy");
  EXPECT_EQ(v3.header.version, 3);
  EXPECT_EQ(v3.header.descr, "<i4");
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(element<std::int32_t>(v3, i), -static_cast<int>(i) * 1000);
}

TEST(Npy, Bf16AsRawBitsInU2) {
  NpyArray a = readNpy(kNpy / "bf16_2x2_u2.npy");
  EXPECT_TRUE(npyDescrFits(DType::bf16, a.header.descr));
  EXPECT_FALSE(npyDescrFits(DType::f16, a.header.descr));
  const float expected[] = {1.0f, -2.0f, 0.5f, 3.0f};
  for (std::size_t i = 0; i < 4; ++i) {
    std::uint32_t bits = static_cast<std::uint32_t>(element<std::uint16_t>(a, i)) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    EXPECT_EQ(f, expected[i]);
  }
}

TEST(Npy, DescrFits) {
  EXPECT_TRUE(npyDescrFits(DType::f16, "<f2"));
  EXPECT_TRUE(npyDescrFits(DType::u8, "|u1"));
  EXPECT_TRUE(npyDescrFits(DType::i8, "<i1"));
  EXPECT_TRUE(npyDescrFits(DType::bf16, "<V2"));
  EXPECT_FALSE(npyDescrFits(DType::f32, "<f8"));
  EXPECT_FALSE(npyDescrFits(DType::i32, "<u4"));
  EXPECT_FALSE(npyDescrFits(DType::i64, ">i8"));
}

TEST(Npy, RejectsFortranBigEndianTruncatedAndNonNpy) {
  std::string fortran = errorOf(kNpy / "fortran_2x2_f32.npy");
  EXPECT_NE(fortran.find("fortran_2x2_f32.npy"), std::string::npos) << fortran;
  EXPECT_NE(fortran.find("fortran_order"), std::string::npos) << fortran;
  EXPECT_NE(errorOf(kNpy / "bigendian_4_f32.npy").find("big-endian"), std::string::npos);
  std::string truncated = errorOf(kNpy / "truncated_4x4_f32.npy");
  EXPECT_NE(truncated.find("truncated data: expected 64 bytes, found 12"), std::string::npos) << truncated;
  EXPECT_NE(errorOf(kNpy / "make_fixtures.py").find("not a .npy file"), std::string::npos);
  EXPECT_NE(errorOf(kNpy / "absent.npy").find("cannot open"), std::string::npos);
}

TEST(Npy, RoundTripEveryDType) {
  for (DType t :
       {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32, DType::i64, DType::u8, DType::i8}) {
    std::vector<std::int64_t> shape{3, 5};
    std::vector<std::uint8_t> bytes(15 * dtypeSize(t));
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + 11);
    auto file = tempFile(std::string(dtypeName(t)) + ".npy");
    writeNpy(file, t, shape, bytes.data(), bytes.size());
    NpyArray a = readNpy(file);
    EXPECT_EQ(a.header.descr, npyDescr(t));
    EXPECT_TRUE(npyDescrFits(t, a.header.descr));
    EXPECT_EQ(a.header.shape, shape);
    EXPECT_EQ(a.data, bytes) << dtypeName(t);
    EXPECT_EQ(std::filesystem::file_size(file), a.header.dataOffset + bytes.size());
    std::filesystem::remove(file);
  }
}

TEST(Npy, RoundTripScalarAndRank1) {
  auto file = tempFile("scalar.npy");
  double v = 2.75;
  writeNpy(file, DType::f64, {}, &v, sizeof v);
  NpyArray a = readNpy(file);
  EXPECT_TRUE(a.header.shape.empty());
  EXPECT_EQ(a.header.elements(), 1);
  EXPECT_DOUBLE_EQ(element<double>(a, 0), 2.75);
  std::int64_t seven[7] = {1, -2, 3, -4, 5, -6, 7};
  writeNpy(file, DType::i64, {7}, seven, sizeof seven);
  a = readNpy(file);
  EXPECT_EQ(a.header.shape, std::vector<std::int64_t>{7});
  EXPECT_EQ(element<std::int64_t>(a, 5), -6);
  std::filesystem::remove(file);
}

TEST(Npy, TensorCheckAgainstConfig) {
  Config c = loadConfig(std::filesystem::path(TILESCOPE_TEST_DATA) / "config" / "small.tscfg.json");
  ResolvedPoint p = resolvePoint(c);
  NpyArray in = loadTensorNpy(c, *p.tensor("in"), false);
  ASSERT_EQ(in.data.size(), 16u * 4u);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(element<float>(in, i), static_cast<float>(i));
  EXPECT_EQ(loadTensorNpy(c, *p.tensor("out"), true).data, in.data);
  // The same file against a tensor of another shape.
  ResolvedTensor other = *p.tensor("out");
  other.shape = {2, 8};
  try {
    checkTensorNpy(c, other, true);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "tensors.out.expected");
    EXPECT_NE(e.problem.find("c_4x4_f32.npy"), std::string::npos) << e.what();
    EXPECT_NE(e.problem.find("[4, 4]"), std::string::npos) << e.what();
    EXPECT_NE(e.problem.find("[2, 8]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(npyRefPath(c, "npy:x.npy"), (c.dir / "x.npy").lexically_normal());
}

}  // namespace

// Untrusted input (docs/config.md#limits): a header or a shape may promise anything; nothing is allocated
// before it is checked against the file's size.
TEST(Npy, LimitsComeBeforeAllocation) {
  auto bytes = [](std::string header, int version, const std::string& data = "") {
    std::string s = "\x93NUMPY";
    s += static_cast<char>(version);
    s += '\0';
    const std::size_t n = header.size();
    for (int i = 0; i < (version == 1 ? 2 : 4); ++i) s += static_cast<char>((n >> (8 * i)) & 0xff);
    return s + header + data;
  };
  auto problem = [](const std::string& b) {
    try {
      (void)parseNpy(b, "x.npy");
    } catch (const NpyError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A version 2 header claiming 4 GiB.
  std::string huge = "\x93NUMPY\x02";
  huge += '\0';
  huge += "\xff\xff\xff\xff";
  EXPECT_NE(problem(huge).find("over the limit"), std::string::npos) << problem(huge);
  // Shapes whose element count overflows, or promises terabytes the file does not hold.
  EXPECT_NE(
      problem(bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4), }", 1))
          .find("more than 2^62"),
      std::string::npos);
  EXPECT_NE(
      problem(bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }", 1, "abcd"))
          .find("truncated data"),
      std::string::npos);
  EXPECT_NE(problem(bytes("{'descr': '<f99999999999999999999', 'fortran_order': False, 'shape': (1,), }", 1))
                .find("unsupported dtype"),
            std::string::npos);
  std::string many = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 100000; ++i) many += "1,";
  EXPECT_NE(problem(bytes(many + "), }", 2)).find("dimensions"), std::string::npos);
  // And a good one still reads.
  const NpyArray ok = parseNpy(
      bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 1, std::string("\x07\0\0\0", 4)),
      "ok.npy");
  EXPECT_EQ(element<std::int32_t>(ok, 0), 7);
  // The file reader checks the size before it allocates, too.
  const auto file = tempFile("big.npy");
  std::ofstream(file, std::ios::binary)
      << bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", 1);
  EXPECT_NE(errorOf(file).find("truncated data"), std::string::npos);
  std::filesystem::remove(file);
}
