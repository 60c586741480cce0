// The toolchain comparison's stage diff (analysis/stage_diff.h): ops counted per
// stage on checked-in text (tests/data/stages: real PTX and an sm_90 nvdisasm
// listing) and on Triton-style MLIR and LLVM IR, and the first stage whose counts
// differ between two sides; why a side did not compile, and the Triton versions
// the comparison refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tilescope/analysis/stage_diff.h"
#include "tilescope/base/toolchain.h"
#include "tilescope/model/report.h"

namespace tilescope {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TILESCOPE_TEST_DATA) + "/stages/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int countOf(const std::vector<OpCount>& ops, const std::string& op) {
  for (const auto& o : ops)
    if (o.op == op) return o.count;
  return 0;
}

TEST(StageDiff, PtxOpcodesWithoutDirectivesLabelsOrPredicates) {
  const auto ops = stageOps("ptx", fixture("kernel.ptx"));
  EXPECT_EQ(countOf(ops, "st.global.u32"), 1);
  EXPECT_EQ(countOf(ops, "ld.param.u64"), 1);
  EXPECT_EQ(countOf(ops, "bra.uni"), 1);
  EXPECT_EQ(countOf(ops, "ret"), 1);
  EXPECT_EQ(countOf(ops, ".loc"), 0);
  EXPECT_EQ(countOf(ops, ".reg"), 0);
  int all = 0;
  for (const auto& o : ops) all += o.count;
  EXPECT_EQ(all, 6);  // ld.param, mov, add, st.global, bra.uni, ret
  EXPECT_EQ(countOf(stageOps("ptx", "@%p1 bra $L__BB0_2;\n"), "bra"), 1);
}

TEST(StageDiff, SassOpcodesWithModifiersPredicatesDropped) {
  const auto ops = stageOps("sass", fixture("nvdisasm_sm90.txt"));
  EXPECT_GE(countOf(ops, "LDG.E.128"), 1);  // `@!P3 LDG.E.128 R4, ...`
  EXPECT_GE(countOf(ops, "LDG.E.U16.CONSTANT"), 1);
  for (const auto& o : ops) {
    EXPECT_NE(o.op.front(), '@') << o.op;
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(o.op.front()))) << o.op;
  }
  for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_GE(ops[i - 1].count, ops[i].count);
}

const char* kTtgir = R"(#blocked = #ttg.blocked<{sizePerThread = [4]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @add_kernel(%arg0: !tt.ptr<f32>) attributes {noinline = false} {
    %c1024_i32 = arith.constant 1024 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %3 = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
    %4:2 = "tt.reduce"(%3) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %5 = arith.addf %a, %b : f32
      tt.reduce.return %5 : f32
    }) : (tensor<1024xf32, #blocked>) -> f32
    tt.store %2, %3 : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  } loc(#loc)
} loc(#loc)
)";

TEST(StageDiff, MlirOpsByDialectName) {
  const auto ops = stageOps("ttgir", kTtgir);
  EXPECT_EQ(countOf(ops, "tt.load"), 1);
  EXPECT_EQ(countOf(ops, "tt.store"), 1);
  EXPECT_EQ(countOf(ops, "tt.reduce"), 1);  // the generic form, quoted
  EXPECT_EQ(countOf(ops, "tt.reduce.return"), 1);
  EXPECT_EQ(countOf(ops, "arith.constant"), 1);
  EXPECT_EQ(countOf(ops, "tt.func"), 1);
  EXPECT_EQ(countOf(ops, "module"), 0);
}

TEST(StageDiff, LlvmInstructionsAndCallsByCallee) {
  const std::string llir =
      "define void @k(ptr addrspace(1) %0) {\n"
      "  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "  %3 = load float, ptr addrspace(1) %0, align 4\n"
      "  store float %3, ptr addrspace(1) %0, align 4\n"
      "  br label %4\n"
      "4:\n"
      "  ret void\n"
      "}\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";
  const auto ops = stageOps("llir", llir);
  EXPECT_EQ(countOf(ops, "call @llvm.nvvm.read.ptx.sreg.tid.x"), 1);
  EXPECT_EQ(countOf(ops, "load"), 1);
  EXPECT_EQ(countOf(ops, "store"), 1);
  EXPECT_EQ(countOf(ops, "br"), 1);
  EXPECT_EQ(countOf(ops, "ret"), 1);
  EXPECT_EQ(countOf(ops, "define"), 0);
  EXPECT_EQ(countOf(ops, "declare"), 0);
}

StagesInfo sides(const std::string& ttgir, const std::string& ptx) {
  StagesInfo s;
  s.collected = true;
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"ttgir", ttgir}, {"ptx", ptx}}) {
    CompilerStage c;
    c.name = name;
    c.present = !text.empty();
    c.absent = text.empty() ? "not made" : "";
    c.text = text;
    s.stages.push_back(c);
  }
  return s;
}

TEST(StageDiff, FirstDifferingStageIsTheEarliestWhoseCountsChange) {
  const std::string ptx = fixture("kernel.ptx");
  std::string wider = ptx;
  wider.replace(wider.find("st.global.u32"), 13, "st.global.v4.u32");
  const StagesInfo a = sides(kTtgir, ptx);
  // Same IR, other PTX: the PTX differs first, the store's width named.
  StagesDiff d = diffStages(a, sides(kTtgir, wider));
  EXPECT_EQ(d.firstDiffering, "ptx");
  ASSERT_EQ(d.stages.size(), 2u);
  EXPECT_FALSE(d.stages[0].differs);
  ASSERT_TRUE(d.stages[1].differs);
  ASSERT_EQ(d.stages[1].changed.size(), 2u);
  // A value renamed changes no count: the same kernel.
  std::string renamed = kTtgir;
  renamed.replace(renamed.find("%c1024_i32 ="), 10, "%cst_1024 ");
  EXPECT_EQ(diffStages(a, sides(renamed, ptx)).firstDiffering, "");
  // An op more in the TTGIR: TTGIR differs first although the PTX does too.
  std::string more = kTtgir;
  more.insert(more.find("    tt.return"), "    %9 = ttg.convert_layout %3 : tensor<1024xf32>\n");
  EXPECT_EQ(diffStages(a, sides(more, wider)).firstDiffering, "ttgir");
  // A stage one side lacks differs, and says why.
  d = diffStages(a, sides("", ptx));
  EXPECT_EQ(d.firstDiffering, "ttgir");
  EXPECT_FALSE(d.stages[0].presentB);
  EXPECT_EQ(toJson(d)["stages"][0]["absent_b"], "not made");
  EXPECT_FALSE(toJson(d)["stages"][0].contains("absent_a"));
}

// A real side: kernels/triton/add_bias_col_mask under Triton 3.5.1 (`check
// --stages`, trimmed to the point's compile and finding). The finding's message
// starts with "add_bias.py:33: "; the comparison shows Triton's cause after the
// location, with the column, and the line's text.
TEST(CompileFailure, TritonCauseAtItsLineAndColumnWithoutTheLocationTwice) {
  const Report r =
      loadReport(std::string(TILESCOPE_TEST_DATA) + "/stages/triton_3.5.1_store_mask.report.json");
  ASSERT_EQ(r.points.size(), 1u);
  const CompileFailure f = compileFailure(r.points.front());
  EXPECT_EQ(f.message, "Cannot broadcast, rank mismatch: ['1024'], ['4', '1024']");
  EXPECT_EQ(f.location, "add_bias.py:33:9");
  EXPECT_EQ(f.sourceLine, "tl.store(out_ptr + offs, x + bias[None, :], mask=col_mask)");
}

TEST(CompileFailure, WithoutTheCauseTheMessageLosesItsLocationPrefix) {
  Point p;
  Finding f;
  f.category = "compile_error";
  f.message = "k.py:7: NameError: name 'tl' is not defined";
  f.location.file = "k.py";
  f.location.line = 7;
  p.findings.push_back(f);
  CompileFailure c = compileFailure(p);
  EXPECT_EQ(c.message, "NameError: name 'tl' is not defined");
  EXPECT_EQ(c.location, "k.py:7");
  EXPECT_EQ(c.sourceLine, "");
  p.findings.front().message = "k.py: cannot import name 'knobs' from 'triton'";  // no line
  p.findings.front().location.line.reset();
  EXPECT_EQ(compileFailure(p).message, "cannot import name 'knobs' from 'triton'");
  EXPECT_EQ(compileFailure(p).location, "k.py");
  // No finding (a CUDA C++ compiler): the log's first line, and no location.
  Point cuda;
  cuda.compile.log = "  kernel.cu(12): error: identifier \"x\" is undefined\nmore\n";
  c = compileFailure(cuda);
  EXPECT_EQ(c.message, "kernel.cu(12): error: identifier \"x\" is undefined");
  EXPECT_EQ(c.location, "");
}

// The helper sets triton.knobs (3.4) and reads JITFunction.raw_src (3.5): under
// 3.4.0 every kernel "does not compile" in the helper, which is no finding about
// the kernel, so the comparison refuses those versions.
TEST(ToolchainVersions, TritonOlderThanTheHelperNeedsIsRefused) {
  EXPECT_NE(unsupportedVersion("triton", "3.4.0"), "");
  EXPECT_NE(unsupportedVersion("triton", "3.2.0"), "");
  EXPECT_NE(unsupportedVersion("triton", "2.3.1"), "");
  EXPECT_NE(unsupportedVersion("triton", "3.4.99rc1"), "");
  EXPECT_NE(unsupportedVersion("triton", "3.4.0").find("3.5.0"), std::string::npos);
  EXPECT_EQ(unsupportedVersion("triton", "3.5.0"), "");
  EXPECT_EQ(unsupportedVersion("triton", "3.5"), "");
  EXPECT_EQ(unsupportedVersion("triton", "3.5.1"), "");
  EXPECT_EQ(unsupportedVersion("triton", "3.6.0"), "");
  EXPECT_EQ(unsupportedVersion("triton", "3.10.0"), "");  // numbers, not text
  EXPECT_EQ(unsupportedVersion("triton", "4"), "");
  EXPECT_EQ(unsupportedVersion("triton", ""), "");          // the default interpreter's
  EXPECT_EQ(unsupportedVersion("tilelang", "0.1.15"), "");  // not Triton
  EXPECT_EQ(unsupportedVersion("triton", "3.6.0+git1a2b"), "");
}

// What the workbench offers by name goes through the same rule: no version
// that compare would refuse, newest first.
TEST(ToolchainVersions, OfferedVersionsAreTheAcceptedOnes) {
  EXPECT_EQ(offeredVersions("triton"), (std::vector<std::string>{"3.6.0", "3.5.1", "3.5.0"}));
  for (const std::string& v : offeredVersions("triton")) EXPECT_EQ(unsupportedVersion("triton", v), "") << v;
  EXPECT_EQ(offeredVersions("tilelang"), (std::vector<std::string>{"0.1.15"}));
  EXPECT_TRUE(offeredVersions("nvcc").empty());
}

}  // namespace
}  // namespace tilescope
