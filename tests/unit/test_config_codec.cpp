// The config's codec (core/src/config/config_fields.cpp): a Config with every
// member set away from its default, written with configDocument, reads back to
// equal values, and writing that again gives the same document.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tilescope/config/config.h"
#include "tilescope/config/config_document.h"

namespace {

using namespace tilescope;
namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-codec-XXXXXX";
    path = mkdtemp(t);
    for (const char* f : {"k.cu", "ref.cu", "k.py", "a.npy", "c.npy"}) std::ofstream(path / f) << "x";
    std::ofstream(path / "p.bin", std::ios::binary) << std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  }
  ~TempDir() { fs::remove_all(path); }
};

DefineValue integer(std::int64_t v) {
  DefineValue d;
  d.i = v;
  return d;
}
DefineValue text(const std::string& s, bool number = false, bool boolean = false) {
  DefineValue d;
  d.isInt = false;
  d.s = s;
  d.isNumber = number;
  d.isBool = boolean;
  return d;
}

ArgSpec scalar(const std::string& text, const std::string& expr, ScalarType type) {
  ArgSpec a;
  a.text = text;
  a.expr = expr;
  a.type = type;
  return a;
}
ArgSpec tensorArg(const std::string& name) {
  ArgSpec a;
  a.text = a.tensor = name;
  a.isTensor = true;
  return a;
}

KernelSpec cudaKernel(const fs::path& dir, const std::string& source, const std::string& entry) {
  KernelSpec k;
  k.source = source;
  k.sourcePath = dir / source;
  k.baseDir = dir;
  k.entry = entry;
  k.compiler = "nvcc";
  k.options = {"-lineinfo", "-O3"};
  return k;
}

/// Every member away from its default (a CUDA kernel with a kernel reference).
Config everyField(const fs::path& dir) {
  Config c;
  c.name = "every_field";
  c.description = "every member set";
  c.dir = dir;
  c.kernel = cudaKernel(dir, "k.cu", "kern");
  c.kernel.defines = {{"BLOCK", integer(64)}, {"TAG", text("fast")}, {"EPS", text("0.5", true)}};
  c.params = {{"N", 1024}, {"M", 3}};
  TensorSpec a{"A", DType::f16, {"N", "M"}, {"M", "1"}, "npy:a.npy", 7, 0.5, false, ""};
  TensorSpec out{"C", DType::i32, {"N"}, {"2"}, "zeros", 9, 2.0, true, "npy:c.npy"};
  c.tensors = {a, out};
  ArgSpec hex;
  hex.text = "bytes(16)";
  hex.isBytes = true;
  hex.bytes = {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
  hex.relocations = {{0, "A", 0}, {8, "C", -16}};
  hex.ambiguous = {0, 8};
  hex.size = 16;
  ArgSpec file;
  file.text = "bytes(8)";
  file.isBytes = true;
  file.bytes = {1, 2, 3, 4, 5, 6, 7, 8};
  file.file = "p.bin";
  ArgSpec two = scalar("2", "2", ScalarType::i32);
  two.integer = true;  // written 2, not "2"
  c.args = {tensorArg("A"),
            tensorArg("C"),
            scalar("N * 2:i64", "N * 2", ScalarType::i64),
            scalar("4359484439294640128:u64", "4359484439294640128", ScalarType::u64),
            two,
            scalar("3", "3", ScalarType::i32),
            hex,
            file};
  c.launch = {{"ceil_div(N, BLOCK)", "2", "1"}, {"BLOCK", "1", "1"}, "BLOCK * 4", {"2", "1", "1"}};
  c.tiles = {{"C", {"BLOCK"}, {"pid_x * BLOCK"}}};
  ReferenceSpec& r = c.reference;
  r.op = "kernel";
  r.kernel = cudaKernel(dir, "ref.cu", "ref");
  r.kernel.defines = {{"R", integer(2)}};
  r.args = {tensorArg("A"), tensorArg("C"), scalar("R", "R", ScalarType::i32)};
  r.launch = {{"N", "1", "1"}, {"R", "1", "1"}, "16", {"1", "2", "1"}};
  c.baseline = {"command", "echo '{}'", "json"};
  c.tolerance = {0.25, 0.125};
  c.run = {30, 2.5, 0.5, 5, 50, 1, true, "full", {"smsp__warps_launched.sum"}};
  c.sweep = {{"BLOCK", {32, 64}}, {"N", {512, 1024}}};
  c.trials = 3;
  return c;
}

/// A Triton kernel's members, the gemm and sdpa references' and a named baseline.
Config tritonGemm(const fs::path& dir) {
  Config c = everyField(dir);
  KernelSpec& k = c.kernel;
  k = KernelSpec{};
  k.language = "triton";
  k.source = "k.py";
  k.sourcePath = dir / "k.py";
  k.entry = "kern";
  k.compiler = "triton";
  k.defines = {{"BLOCK", integer(64)}, {"DT", text("tl.float16")}, {"FLAG", text("true", false, true)}};
  k.numWarps = 8;
  k.numStages = 2;
  k.numCtas = 2;
  c.args = {tensorArg("A"), tensorArg("C"), scalar("N", "N", ScalarType::i32)};
  c.launch = {{"ceil_div(N, BLOCK)", "1", "1"}, {"32 * num_warps", "1", "1"}, "0", {"1", "1", "1"}};
  c.reference = ReferenceSpec{};
  c.reference.op = "gemm";
  c.reference.a = "A";
  c.reference.b = "A";
  c.reference.out = "C";
  c.reference.transA = c.reference.transB = true;
  c.reference.alpha = 2;
  c.reference.beta = 0.5;
  c.baseline = {"cublas", "", "json"};
  c.run.counters = false;
  c.run.counterSet = "";
  c.sweep = {{"BLOCK", {32, 64}}, {kNumWarps, {4, 8}}};
  return c;
}

void expectSame(const KernelSpec& a, const KernelSpec& b) {
  EXPECT_EQ(a.language, b.language);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.sourcePath, b.sourcePath);
  EXPECT_EQ(a.entry, b.entry);
  EXPECT_EQ(a.compiler, b.compiler);
  EXPECT_EQ(a.options, b.options);
  ASSERT_EQ(a.defines.size(), b.defines.size());
  for (std::size_t i = 0; i < a.defines.size(); ++i) {
    const auto& [an, av] = a.defines[i];
    const auto& [bn, bv] = b.defines[i];
    EXPECT_EQ(an, bn);
    EXPECT_EQ(av.isInt, bv.isInt) << an;
    EXPECT_EQ(av.i, bv.i) << an;
    EXPECT_EQ(av.s, bv.s) << an;
    EXPECT_EQ(av.isNumber, bv.isNumber) << an;
    EXPECT_EQ(av.isBool, bv.isBool) << an;
  }
  EXPECT_EQ(a.numWarps, b.numWarps);
  EXPECT_EQ(a.numStages, b.numStages);
  EXPECT_EQ(a.numCtas, b.numCtas);
}

void expectSame(const std::vector<ArgSpec>& a, const std::vector<ArgSpec>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].text, b[i].text) << i;
    EXPECT_EQ(a[i].isTensor, b[i].isTensor) << i;
    EXPECT_EQ(a[i].tensor, b[i].tensor) << i;
    EXPECT_EQ(a[i].expr, b[i].expr) << i;
    EXPECT_EQ(a[i].type, b[i].type) << i;
    EXPECT_EQ(a[i].isBytes, b[i].isBytes) << i;
    EXPECT_EQ(a[i].bytes, b[i].bytes) << i;
    ASSERT_EQ(a[i].relocations.size(), b[i].relocations.size()) << i;
    for (std::size_t r = 0; r < a[i].relocations.size(); ++r) {
      EXPECT_EQ(a[i].relocations[r].offset, b[i].relocations[r].offset);
      EXPECT_EQ(a[i].relocations[r].tensor, b[i].relocations[r].tensor);
      EXPECT_EQ(a[i].relocations[r].delta, b[i].relocations[r].delta);
    }
    EXPECT_EQ(a[i].ambiguous, b[i].ambiguous) << i;
    EXPECT_EQ(a[i].file, b[i].file) << i;
    EXPECT_EQ(a[i].integer, b[i].integer) << i;
    EXPECT_EQ(a[i].size, b[i].size) << i;
  }
}

void expectSame(const LaunchSpec& a, const LaunchSpec& b) {
  EXPECT_EQ(a.grid, b.grid);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.sharedBytes, b.sharedBytes);
  EXPECT_EQ(a.cluster, b.cluster);
}

void expectSame(const Config& a, const Config& b) {
  EXPECT_EQ(a.schema, b.schema);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  expectSame(a.kernel, b.kernel);
  EXPECT_EQ(a.params, b.params);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const TensorSpec &x = a.tensors[i], &y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.strides, y.strides);
    EXPECT_EQ(x.init, y.init);
    EXPECT_EQ(x.seed, y.seed);
    EXPECT_EQ(x.scale, y.scale);
    EXPECT_EQ(x.output, y.output);
    EXPECT_EQ(x.expected, y.expected);
  }
  expectSame(a.args, b.args);
  expectSame(a.launch, b.launch);
  ASSERT_EQ(a.tiles.size(), b.tiles.size());
  for (std::size_t i = 0; i < a.tiles.size(); ++i) {
    EXPECT_EQ(a.tiles[i].tensor, b.tiles[i].tensor);
    EXPECT_EQ(a.tiles[i].tile, b.tiles[i].tile);
    EXPECT_EQ(a.tiles[i].origin, b.tiles[i].origin);
  }
  const ReferenceSpec &r = a.reference, &s = b.reference;
  EXPECT_EQ(r.op, s.op);
  EXPECT_EQ(std::tie(r.a, r.b, r.out, r.transA, r.transB, r.alpha, r.beta),
            std::tie(s.a, s.b, s.out, s.transA, s.transB, s.alpha, s.beta));
  EXPECT_EQ(std::tie(r.q, r.k, r.v, r.scale, r.causal, r.layout),
            std::tie(s.q, s.k, s.v, s.scale, s.causal, s.layout));
  expectSame(r.kernel, s.kernel);
  expectSame(r.args, s.args);
  expectSame(r.launch, s.launch);
  EXPECT_EQ(std::tie(a.baseline.kind, a.baseline.command, a.baseline.parse),
            std::tie(b.baseline.kind, b.baseline.command, b.baseline.parse));
  EXPECT_EQ(a.tolerance.rtol, b.tolerance.rtol);
  EXPECT_EQ(a.tolerance.atol, b.tolerance.atol);
  const RunSettings &u = a.run, &w = b.run;
  EXPECT_EQ(std::tie(u.timeoutS, u.slowFactor, u.timeBudgetS, u.minReps, u.maxReps, u.warmup, u.counters,
                     u.counterSet, u.metrics),
            std::tie(w.timeoutS, w.slowFactor, w.timeBudgetS, w.minReps, w.maxReps, w.warmup, w.counters,
                     w.counterSet, w.metrics));
  ASSERT_EQ(a.sweep.size(), b.sweep.size());
  for (std::size_t i = 0; i < a.sweep.size(); ++i) {
    EXPECT_EQ(a.sweep[i].name, b.sweep[i].name);
    EXPECT_EQ(a.sweep[i].values, b.sweep[i].values);
  }
  EXPECT_EQ(a.trials, b.trials);
}

void expectRoundTrip(const Config& c, const fs::path& dir) {
  const nlohmann::ordered_json written = configDocument(c);
  Config read;
  try {
    read = parseConfigText(written.dump(), dir);
  } catch (const ConfigError& e) {
    FAIL() << e.what() << "\n" << written.dump(2);
  }
  expectSame(c, read);
  EXPECT_EQ(configDocument(read).dump(2), written.dump(2));
}

TEST(ConfigCodec, EveryFieldRoundTrips) {
  TempDir d;
  expectRoundTrip(everyField(d.path), d.path);
}

TEST(ConfigCodec, TritonGemmAndSdpaRoundTrip) {
  TempDir d;
  Config c = tritonGemm(d.path);
  expectRoundTrip(c, d.path);
  c.reference = ReferenceSpec{};
  c.reference.op = "sdpa";
  c.reference.q = c.reference.k = c.reference.v = "A";
  c.reference.out = "C";
  c.reference.scale = 0.125;
  c.reference.causal = true;
  c.baseline = {"sdpa_math", "", "json"};
  c.run.counters = false;
  c.run.counterSet = "none";
  expectRoundTrip(c, d.path);
}

TEST(ConfigCodec, WritesInTheDocumentsOrderWithoutDefaults) {
  TempDir d;
  EXPECT_EQ(configDocument(parseConfigText(R"({"schema": "tilescope.config/1", "name": "k",
    "kernel": {"source": "k.cu", "entry": "k", "defines": {"BLOCK": 64}},
    "tensors": {"X": {"dtype": "f32", "shape": [64], "output": true}}, "args": ["X"],
    "launch": {"grid": [1], "block": ["BLOCK"]}, "tolerance": {"rtol": 0, "atol": 0}})",
                                           d.path))
                .dump(),
            R"({"schema":"tilescope.config/1","name":"k","kernel":{"source":"k.cu","entry":"k",)"
            R"("defines":{"BLOCK":64}},"tensors":{"X":{"dtype":"f32","shape":[64],"output":true}},)"
            R"("args":["X"],"launch":{"grid":[1,1,1],"block":["BLOCK",1,1]},"reference":{"op":"none"},)"
            R"("baseline":"none","tolerance":{"rtol":0,"atol":0}})");
}

}  // namespace
