// The compiler stages' parsers (analysis/compiler_stages.h) on checked-in text:
// nvdisasm's listing (tests/data/stages/nvdisasm_sm90.txt, cut from a real sm_90
// listing of kernels/gemm/gemm_tiled.cu, a few instructions added), PTX with
// .loc and trailing .file directives, Triton's MLIR and LLVM IR, the per-line
// summary's widths, clipping, and the report section's round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tilescope/analysis/compiler_stages.h"
#include "tilescope/model/report.h"

namespace tilescope {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TILESCOPE_TEST_DATA) + "/stages/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CompilerStages, NvdisasmListingMapsEveryInstruction) {
  const auto sass = parseNvdisasm(fixture("nvdisasm_sm90.txt"));
  ASSERT_EQ(sass.size(), 13u);
  EXPECT_EQ(sass[0].function, "gemm_tiled");
  EXPECT_EQ(sass[0].line, 126);
  EXPECT_EQ(sass[0].file, "/src/gemm_tiled.cu");
  EXPECT_EQ(sass[2].opcode, "LDG.E.128");  // the predicate is not the opcode
  EXPECT_EQ(sass[2].text, "@!P3 LDG.E.128 R4, desc[UR10][R28.64] ;");
  EXPECT_EQ(sass[3].offset, 0x30u);
  EXPECT_EQ(sass[3].line, 72);   // a label keeps the line
  EXPECT_EQ(sass[4].line, 110);  // inlined: the inlined function's line
  EXPECT_EQ(sass.back().opcode, "EXIT");
  const auto spans = sassSpans(sass);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[1].first, sass[1].textLine);
  EXPECT_EQ(spans[1].last, sass[3].textLine);  // across the label
  EXPECT_EQ(spans[1].line, 72);
}

TEST(CompilerStages, SassWidthsAndClasses) {
  EXPECT_EQ(classifySass("LDG.E").bytes, 4);
  EXPECT_EQ(classifySass("LDG.E.128").bytes, 16);
  EXPECT_EQ(classifySass("LDG.E.64.CONSTANT").bytes, 8);
  EXPECT_EQ(classifySass("LDG.E.U16.CONSTANT").bytes, 2);
  EXPECT_EQ(classifySass("LDG.E.S8").bytes, 1);
  EXPECT_EQ(classifySass("STG.E.128").memory, SassMemory::globalStore);
  EXPECT_EQ(classifySass("LDS.U.128").bytes, 16);
  EXPECT_EQ(classifySass("LDSM.16.M88.4").bytes, 16);
  EXPECT_EQ(classifySass("LDSM.16.MT88.2").bytes, 8);
  EXPECT_EQ(classifySass("LDSM.16.M88").bytes, 4);
  const SassClass cp = classifySass("LDGSTS.E.BYPASS.LTC128B.128");
  EXPECT_EQ(cp.memory, SassMemory::globalLoad);
  EXPECT_TRUE(cp.alsoSharedStore);
  EXPECT_EQ(cp.bytes, 16);
  EXPECT_EQ(classifySass("UTMALDG.2D").bytes, 0);
  EXPECT_EQ(classifySass("STL").memory, SassMemory::localStore);
  EXPECT_TRUE(classifySass("HMMA.16816.F32").tensor);
  EXPECT_TRUE(classifySass("HGMMA.64x128x16.F32").tensor);
  EXPECT_TRUE(classifySass("IMMA.16832.S8.S8").tensor);
  EXPECT_FALSE(classifySass("FFMA").tensor);
  EXPECT_EQ(classifySass("LD.E").memory, SassMemory::none);  // generic: the space is not known
}

TEST(CompilerStages, PerLineSummaryCountsWidths) {
  const auto lines = summarizeLines(parseNvdisasm(fixture("nvdisasm_sm90.txt")), "", {});
  ASSERT_EQ(lines.size(), 4u);  // 72, 110, 126, 183 (by line)
  const StageLineSummary& load = lines[0];
  EXPECT_EQ(load.line, 72);
  EXPECT_EQ(load.sass, 3);
  EXPECT_EQ(load.globalLoads, (std::vector<WidthCount>{{2, 1}, {4, 1}, {16, 1}}));
  EXPECT_EQ(load.instructions.front(), "/*0010*/ LDG.E.U16.CONSTANT R30, desc[UR10][R30.64] ;");
  const StageLineSummary& mma = lines[1];
  EXPECT_EQ(mma.sharedStores, (std::vector<WidthCount>{{16, 1}}));
  EXPECT_EQ(mma.sharedLoads, (std::vector<WidthCount>{{16, 1}}));
  EXPECT_EQ(mma.tensor, 2);
  EXPECT_EQ(mma.tensorOps, (std::vector<std::string>{"HMMA.16816.F32", "HGMMA.64x128x16.F32"}));
  const StageLineSummary& spill = lines[3];
  EXPECT_EQ(spill.line, 183);
  EXPECT_EQ(spill.localLoads, 1);
  EXPECT_EQ(spill.localStores, 1);
  EXPECT_EQ(spill.globalLoads, (std::vector<WidthCount>{{16, 1}}));   // cp.async: a global load ...
  EXPECT_EQ(spill.sharedStores, (std::vector<WidthCount>{{16, 1}}));  // ... and a shared store
  EXPECT_EQ(spill.globalStores, (std::vector<WidthCount>{{8, 1}}));
  EXPECT_EQ(spill.sass, 5);  // EXIT too
}

TEST(CompilerStages, PtxLocMapsLinesThroughTrailingFileDirectives) {
  const std::string ptx = fixture("kernel.ptx");
  const auto spans = ptxSpans(ptx);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0], (StageSpan{11, 11, "/src/k.cu", 10}));
  EXPECT_EQ(spans[1], (StageSpan{13, 17, "/src/k.cu", 12}));     // the label between: one span
  EXPECT_EQ(spans[2], (StageSpan{21, 21, "/src/helper.h", 5}));  // line 0 broke the run; inlined helper
  const auto lines = summarizeLines({}, ptx, spans);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].file, "/src/helper.h");  // by file, then line
  EXPECT_EQ(lines[2].file, "/src/k.cu");
  EXPECT_EQ(lines[2].line, 12);
  EXPECT_EQ(lines[2].ptx, 3);
  EXPECT_EQ(lines[2].sass, 0);
}

TEST(CompilerStages, MlirLocationsThroughAliasesNamesAndCallsites) {
  const std::string ttir =
      "#loc = loc(\"/k/add.py\":12:0)\n"
      "#loc15 = loc(\"x_ptr\"(#loc))\n"
      "module {\n"
      "  tt.func public @add(%x: !tt.ptr<f32> loc(\"x_ptr\"(#loc))) {\n"
      "    %pid = tt.get_program_id x : i32 loc(#loc19)\n"
      "    %c = arith.constant 1 : i32 loc(#loc1)\n"
      "    %s = tt.call @helper() : () -> i32 loc(#loc30)\n"
      "    tt.store %1, %2 : tensor<1024x!tt.ptr<f32>> loc(\"/k/add.py\":21:33)\n"
      "  } loc(#loc)\n"
      "} loc(#loc)\n"
      "#loc1 = loc(unknown)\n"
      "#loc2 = loc(\"/k/add.py\":13:24)\n"
      "#loc19 = loc(\"pid\"(#loc2))\n"
      "#loc29 = loc(\"/k/lib.py\":7:3)\n"
      "#loc30 = loc(callsite(#loc29 at #loc2))\n";
  const auto spans = mlirSpans(ttir);
  ASSERT_EQ(spans.size(), 5u);
  EXPECT_EQ(spans[0], (StageSpan{4, 4, "/k/add.py", 12}));
  EXPECT_EQ(spans[1], (StageSpan{5, 5, "/k/add.py", 13}));
  EXPECT_EQ(spans[2], (StageSpan{7, 7, "/k/lib.py", 7}));  // unknown broke the run; the callee's line
  EXPECT_EQ(spans[3], (StageSpan{8, 8, "/k/add.py", 21}));
  EXPECT_EQ(spans[4], (StageSpan{9, 10, "/k/add.py", 12}));
}

TEST(CompilerStages, LlvmDebugLocations) {
  const std::string llir =
      "define void @add(ptr %0) !dbg !4 {\n"
      "  %7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7\n"
      "  %8 = shl i32 %7, 10, !dbg !7\n"
      "  %9 = add i32 %8, 1\n"
      "  ret void, !dbg !8\n"
      "}\n"
      "!1 = !DIFile(filename: \"add.py\", directory: \"/k\")\n"
      "!4 = distinct !DISubprogram(name: \"add\", scope: !1, file: !1, line: 12, unit: !0)\n"
      "!7 = !DILocation(line: 13, column: 24, scope: !4)\n"
      "!8 = !DILocation(line: 18, column: 4, scope: !4)\n";
  const auto spans = llvmSpans(llir);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0], (StageSpan{2, 3, "/k/add.py", 13}));
  EXPECT_EQ(spans[1], (StageSpan{5, 5, "/k/add.py", 18}));
}

TEST(CompilerStages, ClippedAtALineEndWithSpansCut) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + "\n";
  const CompilerStage s =
      makeStage("ptx", text, {{1, 2, "k.cu", 3}, {50, 60, "k.cu", 4}, {95, 99, "k.cu", 5}}, 400);
  EXPECT_TRUE(s.clipped);
  EXPECT_EQ(s.bytes, std::int64_t(text.size()));
  EXPECT_EQ(s.lines, 100);
  EXPECT_LE(s.text.size(), 400u);
  EXPECT_EQ(s.text.back(), '\n');
  const int kept = int(std::count(s.text.begin(), s.text.end(), '\n'));
  ASSERT_EQ(s.spans.size(), 2u);
  EXPECT_EQ(s.spans[1].last, kept);
  EXPECT_FALSE(makeStage("ptx", "a\nb\n", {}).clipped);
  EXPECT_EQ(absentStage("ttir", "no Triton").absent, "no Triton");
}

TEST(CompilerStages, ReportSectionRoundTrips) {
  Point p;
  p.stages.collected = true;
  p.stages.compiler = "nvrtc";
  p.stages.arch = "sm_90";
  p.stages.note = "llir clipped";
  p.stages.stages = {makeStage("ptx", fixture("kernel.ptx"), ptxSpans(fixture("kernel.ptx"))),
                     absentStage("ttir", "CUDA C++ has no Triton IR")};
  p.stages.lines = summarizeLines(parseNvdisasm(fixture("nvdisasm_sm90.txt")), "", {});
  Report r;
  r.points.push_back(p);
  const nlohmann::json j = toJson(r);
  const auto& section = j["points"][0]["stages"];
  EXPECT_EQ(section["stages"][0]["spans"][0], nlohmann::json::parse(R"([11, 11, "/src/k.cu", 10])"));
  EXPECT_EQ(section["lines"][0]["global_loads"], nlohmann::json::parse("[[2, 1], [4, 1], [16, 1]]"));
  EXPECT_FALSE(section["stages"][1].contains("text"));
  const Report back = reportFromJson(j);
  EXPECT_EQ(back.points[0].stages, p.stages);
  ASSERT_NE(back.points[0].stages.find("gemm_tiled.cu", 183), nullptr);
  EXPECT_EQ(back.points[0].stages.find("gemm_tiled.cu", 183)->localStores, 1);
  EXPECT_EQ(back.points[0].stages.find("other.cu", 183), nullptr);
  EXPECT_FALSE(toJson(Point{}).contains("stages"));  // not asked for: absent
  nlohmann::json bad = j;
  bad["points"][0]["stages"]["lines"][0]["sass"] = "many";
  try {
    reportFromJson(bad);
    FAIL() << "a string in an int field read";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("points[0].stages.lines[0].sass"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilescope
