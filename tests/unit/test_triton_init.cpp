// initTritonConfig on hand-built signatures (what the helper reports for the zoo's
// kernels): the started config must load, resolve, and tie strides to shapes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tilescope/config/config.h"
#include "tilescope/config/triton_init.h"

namespace {

using namespace tilescope;
using nlohmann::json;

const std::filesystem::path kZoo = std::filesystem::path(TILESCOPE_SOURCE_DIR) / "kernels" / "triton";

TritonParamInfo ptr(const std::string& n, bool stored = false, const std::string& ann = "") {
  return {n, false, "pointer", stored, ann, json()};
}
TritonParamInfo scalar(const std::string& n, const std::string& ann = "") {
  return {n, false, "scalar", false, ann, json()};
}
TritonParamInfo cexpr(const std::string& n, json def = json()) {
  return {n, true, "", false, "constexpr", def};
}

Config load(const nlohmann::ordered_json& doc) { return parseConfigText(doc.dump(), kZoo, "init-triton"); }

TEST(TritonInit, TensorNames) {
  EXPECT_EQ(tensorNameForPointer("a_ptr"), "a");
  EXPECT_EQ(tensorNameForPointer("output_ptrs"), "output");
  EXPECT_EQ(tensorNameForPointer("XPtr"), "X");
  EXPECT_EQ(tensorNameForPointer("Q"), "Q");
}

TEST(TritonInit, MatmulStridesBecomeShapes) {
  TritonSignatureInfo s;
  s.name = "matmul_kernel";
  s.params = {ptr("a_ptr"),
              ptr("b_ptr"),
              ptr("c_ptr", true),
              scalar("M"),
              scalar("N"),
              scalar("K"),
              scalar("stride_am"),
              scalar("stride_ak"),
              scalar("stride_bk"),
              scalar("stride_bn"),
              scalar("stride_cm"),
              scalar("stride_cn"),
              cexpr("BLOCK_M"),
              cexpr("BLOCK_N"),
              cexpr("BLOCK_K"),
              cexpr("GROUP_M"),
              cexpr("BUG_DOT_SHAPE", false)};
  s.programIdAxes = {0};
  s.autotuneConfigs =
      json::array({{{"kwargs", {{"BLOCK_M", 128}, {"BLOCK_N", 256}}}, {"num_warps", 8}, {"num_stages", 3}}});
  auto doc = initTritonConfig(s, "matmul.py");
  EXPECT_EQ(doc["tensors"]["a"]["shape"], json({"M", "K"}));
  EXPECT_EQ(doc["tensors"]["b"]["shape"], json({"K", "N"}));
  EXPECT_EQ(doc["tensors"]["c"]["shape"], json({"M", "N"}));
  EXPECT_TRUE(doc["tensors"]["c"].value("output", false));
  EXPECT_FALSE(doc["tensors"]["a"].contains("output"));
  EXPECT_EQ(doc["args"], json({"a", "b", "c", "M", "N", "K", "K", 1, "N", 1, "N", 1}));
  EXPECT_EQ(doc["kernel"]["constexprs"]["BLOCK_M"], 128);  // the first autotune config
  EXPECT_EQ(doc["kernel"]["constexprs"]["BLOCK_N"], 256);
  EXPECT_EQ(doc["kernel"]["constexprs"]["BUG_DOT_SHAPE"], false);  // its default
  EXPECT_EQ(doc["kernel"]["num_warps"], 8);
  EXPECT_EQ(doc["launch"]["grid"], json({"ceil_div(M, BLOCK_M) * ceil_div(N, BLOCK_N)"}));
  Config c = load(doc);
  ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.launch.grid[0], 8 * 4);  // 1024/128 x 1024/256
  EXPECT_EQ(p.launch.block[0], 256);
}

TEST(TritonInit, ElementwiseIsOneDimensional) {
  TritonSignatureInfo s;
  s.name = "add_kernel";
  s.params = {ptr("x_ptr"), ptr("y_ptr"), ptr("out_ptr", true), scalar("n"), cexpr("BLOCK")};
  s.programIdAxes = {0};
  auto doc = initTritonConfig(s, "add.py");
  EXPECT_EQ(doc["tensors"]["x"]["shape"], json({"n"}));
  EXPECT_EQ(doc["kernel"]["constexprs"]["BLOCK"], 1024);
  EXPECT_EQ(doc["launch"]["grid"], json({"ceil_div(n, BLOCK)"}));
  EXPECT_EQ(doc["kernel"]["num_warps"], 4);
  Config c = load(doc);
  EXPECT_EQ(resolvePoint(c).launch.grid[0], 1);
}

TEST(TritonInit, RowStridesMakeRowPrograms) {
  TritonSignatureInfo s;
  s.name = "softmax_kernel";
  s.params = {ptr("x_ptr"),       ptr("y_ptr", true),    scalar("N"),   scalar("stride_x"),
              scalar("stride_y"), scalar("eps", "fp32"), cexpr("BLOCK")};
  s.programIdAxes = {0};
  auto doc = initTritonConfig(s, "softmax.py");
  EXPECT_EQ(doc["tensors"]["x"]["shape"], json({"ROWS", "N"}));
  EXPECT_EQ(doc["args"], json({"x", "y", "N", "N", "N", "1e-5:f32"}));
  EXPECT_EQ(doc["launch"]["grid"], json({"ROWS"}));
  Config c = load(doc);
  EXPECT_EQ(resolvePoint(c).launch.grid[0], 1024);
}

TEST(TritonInit, UnexplainedStridesBecomeParams) {
  TritonSignatureInfo s;
  s.name = "k";
  s.params = {ptr("src", false, "*fp16"), ptr("dst", true, "*bf16"), scalar("size"), scalar("stride_q"),
              cexpr("B")};
  auto doc = initTritonConfig(s, "add.py");
  EXPECT_EQ(doc["tensors"]["src"]["dtype"], "f16");
  EXPECT_EQ(doc["tensors"]["dst"]["dtype"], "bf16");
  EXPECT_EQ(doc["params"]["stride_q"], 1);
  EXPECT_EQ(doc["launch"]["grid"], json({1}));
  EXPECT_NO_THROW(resolvePoint(load(doc)));
}

/// Signatures that reach every branch of the draft: autotuned and default constexprs
/// of every JSON kind, row strides, unexplained strides, made-up sizes, no sizes, no
/// constexprs, two program axes, and pointers whose tensor names collide.
std::vector<std::pair<std::string, TritonSignatureInfo>> draftSignatures() {
  std::vector<std::pair<std::string, TritonSignatureInfo>> out;
  auto add = [&](const std::string& label, TritonSignatureInfo s) { out.emplace_back(label, std::move(s)); };
  TritonSignatureInfo s;
  s.name = "matmul_kernel";
  s.params = {ptr("a_ptr", false, "*fp16"),
              ptr("b_ptr", false, "*fp16"),
              ptr("c_ptr", true, "*fp32"),
              scalar("M", "i32"),
              scalar("N", "i32"),
              scalar("K", "i32"),
              scalar("stride_am"),
              scalar("stride_ak"),
              scalar("stride_bk"),
              scalar("stride_bn"),
              scalar("stride_cm"),
              scalar("stride_cn"),
              cexpr("BLOCK_M"),
              cexpr("BLOCK_N"),
              cexpr("BLOCK_K", 32),
              cexpr("GROUP_M"),
              cexpr("BUG_DOT_SHAPE", false)};
  s.programIdAxes = {0, 1};
  s.autotuneConfigs = json::array({{{"kwargs", {{"BLOCK_M", 128}, {"BLOCK_N", 256}}},
                                    {"num_warps", 8},
                                    {"num_stages", 4},
                                    {"num_ctas", 2}},
                                   {{"kwargs", {{"BLOCK_M", 64}}}, {"num_warps", 4}}});
  add("matmul", s);
  s = {};
  s.name = "add_kernel";
  s.params = {ptr("x_ptr"), ptr("y_ptr"), ptr("out_ptr", true), scalar("n_elements"), cexpr("BLOCK_SIZE")};
  s.programIdAxes = {0};
  add("add", s);
  s = {};
  s.name = "softmax_kernel";
  s.params = {ptr("x_ptr"),       ptr("y_ptr", true),    scalar("N"),     scalar("stride_x"),
              scalar("stride_y"), scalar("eps", "fp32"), scalar("scale"), cexpr("BLOCK")};
  s.programIdAxes = {0};
  add("softmax", s);
  s = {};
  s.name = "k";
  s.params = {ptr("src", false, "*fp16"), ptr("dst", true, "*bf16"),
              ptr("idx", false, "*i64"),  scalar("size"),
              scalar("stride_q"),         cexpr("B")};
  add("unexplained_stride", s);
  s = {};
  s.name = "fill";
  s.params = {ptr("out_ptr", true, "*u8"), scalar("stride_out_rows")};
  add("no_sizes_no_constexprs", s);
  s = {};
  s.name = "kinds";
  s.params = {ptr("X"),
              ptr("X_ptr", true),
              ptr("X_ptrs"),
              scalar("n"),
              cexpr("HEAD_DIM"),
              cexpr("IS_CAUSAL"),
              cexpr("MODE", "ieee"),
              cexpr("RATIO", 0.25),
              cexpr("HUGE", json(std::uint64_t(18446744073709551615ull))),
              cexpr("NEG", -3),
              cexpr("STAGES")};
  s.autotuneConfigs = json::array({{{"kwargs", {{"STAGES", 2.5}, {"MODE", true}}}}});
  add("constexpr_kinds", s);
  return out;
}

// The drafts as init-triton writes them, key order included (what a person opens):
// tests/data/triton_init/drafts.json holds one document per signature above.
TEST(TritonInit, DraftsMatchTheirGoldenDocuments) {
  const std::string file = std::string(TILESCOPE_TEST_DATA) + "/triton_init/drafts.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const auto golden = nlohmann::ordered_json::parse(in);
  for (const auto& [label, sig] : draftSignatures()) {
    SCOPED_TRACE(label);
    ASSERT_TRUE(golden.contains(label));
    EXPECT_EQ(initTritonConfig(sig, label + ".py").dump(2), golden[label].dump(2));
  }
}

TEST(TritonInit, HelperErrorsSurface) {
  json err = {{"ok", false}, {"message", "no function 'x' in k.py"}, {"file", "k.py"}, {"line", 0}};
  try {
    tritonSignatureFromJson(err);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no function 'x'"), std::string::npos);
  }
  json ok = {{"ok", true},
             {"name", "k"},
             {"def_line", 7},
             {"params", {{{"name", "p"}, {"constexpr", false}, {"kind", "pointer"}, {"stored", true}}}},
             {"program_id_axes", {0, 1}}};
  auto s = tritonSignatureFromJson(ok);
  EXPECT_EQ(s.defLine, 7);
  ASSERT_EQ(s.params.size(), 1u);
  EXPECT_TRUE(s.params[0].stored);
  EXPECT_EQ(s.programIdAxes.size(), 2u);
}

}  // namespace
