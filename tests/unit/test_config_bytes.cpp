// Arguments passed as bytes (docs/config.md, "Arguments passed as bytes"):
// the content from `hex` or a `file`, relocations, and errors that name the
// JSON path, absurd sizes included.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tilescope/config/config.h"

namespace {

using namespace tilescope;
namespace fs = std::filesystem;
using nlohmann::json;

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-bytes-XXXXXX";
    path = mkdtemp(t);
    std::ofstream(path / "k.cubin") << "not read by the loader";
  }
  ~TempDir() { fs::remove_all(path); }
};

/// A CUDA config taking one tensor X and `arg`.
json configWith(const json& arg) {
  json c = json::parse(R"({
    "schema": "tilescope.config/1",
    "kernel": {"source": "k.cubin", "entry": "k"},
    "tensors": {"X": {"dtype": "f32", "shape": [64], "output": true}},
    "launch": {"grid": [1, 1, 1], "block": [64, 1, 1]}})");
  c["args"] = json::array({arg, "X"});
  return c;
}

Config parse(const json& doc, const fs::path& dir) { return parseConfigText(doc.dump(), dir); }

/// The ConfigError of loading `doc` and resolving its point.
ConfigError errorOf(const json& doc, const fs::path& dir) {
  try {
    resolvePoint(parse(doc, dir));
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << doc.dump();
  return ConfigError("", "");
}

TEST(ConfigBytes, InlineHexWithRelocations) {
  TempDir d;
  const Config c = parse(configWith(json::parse(R"({
      "kind": "bytes", "size": 24, "hex": "00000000000000000000000000000000400000000000803f",
      "relocations": [{"offset": 0, "tensor": "X"}, {"offset": 8, "tensor": "X", "delta": 128}],
      "ambiguous": [16]})")),
                         d.path);
  ASSERT_EQ(c.args.size(), 2u);
  const ArgSpec& a = c.args[0];
  EXPECT_TRUE(a.isBytes);
  EXPECT_FALSE(a.isTensor);
  EXPECT_EQ(a.text, "bytes(24)");
  ASSERT_EQ(a.bytes.size(), 24u);
  EXPECT_EQ(a.bytes[16], 0x40);
  EXPECT_EQ(a.bytes[23], 0x3f);
  ASSERT_EQ(a.relocations.size(), 2u);
  EXPECT_EQ(a.relocations[1].offset, 8u);
  EXPECT_EQ(a.relocations[1].tensor, "X");
  EXPECT_EQ(a.relocations[1].delta, 128);
  EXPECT_EQ(a.relocations[0].delta, 0);
  EXPECT_EQ(a.ambiguous, std::vector<std::uint32_t>{16});
  EXPECT_TRUE(c.args[1].isTensor);
  EXPECT_NO_THROW(resolvePoint(c));  // a bytes argument is not a scalar expression
}

TEST(ConfigBytes, ContentFromAFile) {
  TempDir d;
  std::vector<char> raw(1048);
  for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = char(i * 7);
  fs::create_directories(d.path / "launches" / "c1-0000");
  std::ofstream(d.path / "launches" / "c1-0000" / "p0.bin", std::ios::binary).write(raw.data(), raw.size());
  const Config c =
      parse(configWith({{"kind", "bytes"}, {"size", 1048}, {"file", "launches/c1-0000/p0.bin"}}), d.path);
  ASSERT_EQ(c.args[0].bytes.size(), 1048u);
  EXPECT_EQ(c.args[0].bytes[1047], std::uint8_t(1047 * 7));
  EXPECT_EQ(c.args[0].text, "bytes(1048)");
}

TEST(ConfigBytes, HandWrittenArgsKeepTheirMeaning) {
  TempDir d;
  const Config c = parse(configWith("3:u64"), d.path);
  EXPECT_FALSE(c.args[0].isBytes);
  EXPECT_EQ(c.args[0].type, ScalarType::u64);
  EXPECT_FALSE(c.args[1].isBytes);
}

struct BadBytes {
  const char* arg;  // the JSON of args[0]
  const char* path;
  const char* contains;
};

TEST(ConfigBytes, ErrorsNameTheJsonPath) {
  TempDir d;
  std::ofstream(d.path / "huge.bin", std::ios::binary) << std::string(40000, 'x');
  std::ofstream(d.path / "empty.bin", std::ios::binary);
  const BadBytes cases[] = {
      {R"({"kind": "bytes"})", "args[0]", "missing `hex` or `file`"},
      {R"({"kind": "bytes", "hex": "00", "file": "x.bin"})", "args[0]", "both `hex` and `file`"},
      {R"({"kind": "struct", "hex": "00"})", "args[0].kind", "unknown argument kind 'struct'"},
      {R"({"kind": "bytes", "hex": "00", "pointers": []})", "args[0].pointers", "unknown key"},
      {R"({"kind": "bytes", "hex": "abc"})", "args[0].hex", "odd number of hex digits"},
      {R"({"kind": "bytes", "hex": "zz00"})", "args[0].hex", "'zz' at character 0 is not a hex byte"},
      {R"({"kind": "bytes", "hex": ""})", "args[0].hex", "no bytes"},
      {R"({"kind": "bytes", "hex": "0000", "size": 4})", "args[0].size",
       "says 4 bytes but the content has 2"},
      {R"({"kind": "bytes", "hex": "00", "size": 1000000000})", "args[0].size", "32764-byte limit"},
      {R"({"kind": "bytes", "hex": "00", "size": 0})", "args[0].size", "a parameter has 1 to 32764"},
      {R"({"kind": "bytes", "file": "huge.bin"})", "args[0].file", "holds 40000 bytes, above the 32764-byte"},
      {R"({"kind": "bytes", "file": "empty.bin"})", "args[0].file", "no bytes"},
      {R"({"kind": "bytes", "file": "missing.bin"})", "args[0].file", "is not a file"},
      {R"({"kind": "bytes", "file": "."})", "args[0].file", "is not a file"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "relocations": [{"offset": 4, "tensor": "X"}]})",
       "args[0].relocations[0].offset", "does not fit in the 8-byte argument"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "relocations": [{"offset": -8, "tensor": "X"}]})",
       "args[0].relocations[0].offset", "does not fit"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "relocations": [{"offset": 0, "tensor": "Y"}]})",
       "args[0].relocations[0].tensor", "unknown tensor 'Y'"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "relocations": [{"offset": 0}]})",
       "args[0].relocations[0].tensor", "missing"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "relocations": [{"offset": 0, "tensor": "X", "to": 1}]})",
       "args[0].relocations[0].to", "unknown key"},
      {R"({"kind": "bytes", "hex": "00000000000000000000000000000000",
           "relocations": [{"offset": 8, "tensor": "X"}, {"offset": 8, "tensor": "X"}]})",
       "args[0].relocations[1].offset", "overlaps the relocation at offset 8"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "relocations": {}})", "args[0].relocations",
       "expected an array"},
      {R"({"kind": "bytes", "hex": "0000000000000000", "ambiguous": [8]})", "args[0].ambiguous[0]",
       "not a word of the 8-byte argument"},
  };
  for (const BadBytes& b : cases) {
    const ConfigError e = errorOf(configWith(json::parse(b.arg)), d.path);
    EXPECT_EQ(e.path, b.path) << b.arg << " -> " << e.what();
    EXPECT_NE(e.problem.find(b.contains), std::string::npos) << b.arg << " -> " << e.what();
  }
}

TEST(ConfigBytes, OverlappingRelocationsAtAnyOffset) {
  TempDir d;
  // 16 bytes, words at 0 and 4 would overlap; 4 + 8 fits, so the overlap is what fails.
  const json arg = json::parse(R"({"kind": "bytes", "hex": "00000000000000000000000000000000",
      "relocations": [{"offset": 0, "tensor": "X"}, {"offset": 4, "tensor": "X"}]})");
  const ConfigError e = errorOf(configWith(arg), d.path);
  EXPECT_EQ(e.path, "args[0].relocations[1].offset");
  EXPECT_NE(e.problem.find("overlaps the relocation at offset 0"), std::string::npos) << e.what();
}

TEST(ConfigBytes, PythonKernelsRefuseBytes) {
  TempDir d;
  std::ofstream(d.path / "k.py") << "import triton\n";
  json c = json::parse(R"({
    "schema": "tilescope.config/1",
    "kernel": {"language": "triton", "source": "k.py", "entry": "k"},
    "tensors": {"X": {"dtype": "f32", "shape": [64]}},
    "args": [{"kind": "bytes", "hex": "00"}, "X"],
    "launch": {"grid": [1, 1, 1]}})");
  const ConfigError e = errorOf(c, d.path);
  EXPECT_EQ(e.path, "args[0]");
  EXPECT_NE(e.problem.find("for CUDA kernels"), std::string::npos) << e.what();
}

}  // namespace
