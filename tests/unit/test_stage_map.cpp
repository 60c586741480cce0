// A source line followed through the compiler stages (analysis/stage_map.h):
// the stages' spans read both ways on the checked-in nvdisasm and PTX fixtures
// and a TTGIR text, instruction offsets found by mangled and demangled names,
// the marks findings and the trace put on SASS lines, the per-line summary's
// sentence, and the exports' "SASS of the findings' lines" section.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tilescope/analysis/compiler_stages.h"
#include "tilescope/analysis/stage_map.h"
#include "tilescope/export/document.h"
#include "tilescope/model/report.h"

namespace tilescope {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TILESCOPE_TEST_DATA) + "/stages/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CompilerStage sassStage() {
  const std::string text = fixture("nvdisasm_sm90.txt");
  return makeStage("sass", text, sassSpans(parseNvdisasm(text)));
}

/// A point of gemm_tiled.cu with the fixture's SASS and its summary.
Point gemmPoint() {
  Point p;
  p.stages.collected = true;
  p.stages.arch = "sm_90";
  const std::string text = fixture("nvdisasm_sm90.txt");
  p.stages.stages = {makeStage("ptx", fixture("kernel.ptx"), ptxSpans(fixture("kernel.ptx"))), sassStage()};
  p.stages.lines = summarizeLines(parseNvdisasm(text), "", {});
  return p;
}

TEST(StageMap, SourceLineToSassLinesAndBack) {
  const CompilerStage sass = sassStage();
  // Line 72: the three loads at text lines 16, 17 and 19, with the label between.
  EXPECT_EQ(stageLinesOf(sass, "gemm_tiled.cu", 72), (std::vector<int>{16, 17, 18, 19}));
  EXPECT_EQ(stageLinesOf(sass, "/elsewhere/gemm_tiled.cu", 183), (std::vector<int>{26, 27, 28, 29, 30}));
  EXPECT_TRUE(stageLinesOf(sass, "gemm.cu", 72).empty());  // another file
  EXPECT_TRUE(stageLinesOf(sass, "gemm_tiled.cu", 73).empty());
  EXPECT_TRUE(stageLinesOf(sass, "gemm_tiled.cu", 0).empty());
  // Back: an instruction's line to its source line; a File comment has none.
  ASSERT_NE(stageSpanAt(sass, 23), nullptr);
  EXPECT_EQ(stageSpanAt(sass, 23)->line, 110);  // HMMA: the inlined function's line
  EXPECT_EQ(stageSpanAt(sass, 14)->line, 126);
  EXPECT_EQ(stageSpanAt(sass, 15), nullptr);  // "//## File ..., line 72"
  EXPECT_EQ(stageSpanAt(sass, 1), nullptr);
  EXPECT_EQ(stageSpanAt(sass, 31), nullptr);  // past the text
}

TEST(StageMap, PtxAndTtgirLinesFollowTheSource) {
  const std::string ptx = fixture("kernel.ptx");
  const CompilerStage p = makeStage("ptx", ptx, ptxSpans(ptx));
  EXPECT_EQ(stageLinesOf(p, "k.cu", 12), (std::vector<int>{13, 14, 15, 16, 17}));
  EXPECT_EQ(stageLinesOf(p, "helper.h", 5), (std::vector<int>{21}));
  EXPECT_EQ(stageSpanAt(p, 19), nullptr);  // .loc 1 0: no line
  const std::string ttgir =
      "#loc = loc(\"/k/add.py\":12:0)\n"
      "module attributes {\"ttg.num-warps\" = 4 : i32} {\n"
      "  tt.func public @add(%x: !tt.ptr<f32>) {\n"
      "    %pid = tt.get_program_id x : i32 loc(#loc2)\n"
      "    %v = tt.load %p, %m : tensor<1024xf32, #blocked> loc(#loc3)\n"
      "    tt.store %q, %v, %m : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc4)\n"
      "    %w = tt.load %r : tensor<1024xf32, #blocked> loc(#loc3)\n"
      "  } loc(#loc)\n"
      "} loc(#loc)\n"
      "#loc2 = loc(\"/k/add.py\":13:24)\n"
      "#loc3 = loc(\"/k/add.py\":17:16)\n"
      "#loc4 = loc(\"/k/add.py\":21:26)\n";
  const CompilerStage g = makeStage("ttgir", ttgir, mlirSpans(ttgir));
  EXPECT_EQ(stageLinesOf(g, "add.py", 17), (std::vector<int>{5, 7}));  // two spans of one line
  EXPECT_EQ(stageSpanAt(g, 6)->line, 21);
  EXPECT_EQ(stageSpanAt(g, 2), nullptr);  // the module's attributes: no op location
}

TEST(StageMap, InstructionOffsetsByMangledAndDemangledNames) {
  const CompilerStage sass = sassStage();
  EXPECT_EQ(sassLineOf(sass, "gemm_tiled", 0xb0), 29);  // STG.E.64
  EXPECT_EQ(sassLineOf(sass, "gemm_tiled", 0x30), 19);  // after the label
  EXPECT_EQ(sassLineOf(sass, "gemm_tiled", 0xd0), 0);   // past EXIT
  EXPECT_EQ(sassLineOf(sass, "gemm_tiled", 0x18), 0);   // inside an instruction
  EXPECT_EQ(sassLineOf(sass, "other", 0xb0), 29);       // one function: the offset decides
  const std::string two =
      "\t.section\t.text._Z4gemmILi64EEvPf,\"ax\",@progbits\n"
      ".text._Z4gemmILi64EEvPf:\n"
      "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   STG.E [R2.64], R1 ;\n"
      "\t.section\t.text._Z7gemmfooPf,\"ax\",@progbits\n"
      ".text._Z7gemmfooPf:\n"
      "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   STG.E.128 [R2.64], R4 ;\n";
  const CompilerStage s2 = makeStage("sass", two, {});
  EXPECT_EQ(sassLineOf(s2, "_Z4gemmILi64EEvPf", 0x10), 4);
  EXPECT_EQ(sassLineOf(s2, "void gemm<64>(float*)", 0x10), 4);  // demangled, as the trace names it
  EXPECT_EQ(sassLineOf(s2, "gemmfoo(float *)", 0x10), 8);       // compute-sanitizer's spelling
  EXPECT_EQ(sassLineOf(s2, "gem", 0x10), 0);                    // no function of that name
  EXPECT_EQ(sassAddress("gemm_tiled", 0x1dd0), "gemm_tiled+0x1dd0");
}

TEST(StageMap, FindingsAndTheTraceMarkTheirInstructions) {
  Point p = gemmPoint();
  Finding store;
  store.category = "oob_write";
  store.severity = Severity::error;
  store.message = "C: 8-byte write 0 bytes past its end";
  store.location.file = "gemm_tiled.cu";
  store.location.line = 183;
  store.location.function = "gemm_tiled";
  store.location.sassOffset = 0xb0;
  Finding unplaced = store;  // a line, no instruction: marks nothing
  unplaced.location.sassOffset.reset();
  Finding elsewhere = store;  // an offset the listing does not have
  elsewhere.location.sassOffset = 0x4000;
  p.findings = {unplaced, store, elsewhere};
  TraceFault fault;
  fault.kind = "oob_read";
  fault.tensor = "A";
  fault.size = 16;
  fault.count = 4096;
  fault.site = {0, "gemm_tiled", 0x20, "gemm_tiled.cu", 72};
  p.trace.faults = {fault, fault};  // twice: one mark
  TraceHazardInfo hazard;
  hazard.kind = "RAW";
  hazard.count = 3;
  hazard.first = {0, "gemm_tiled", 0x40, "gemm_tiled.cu", 110};
  hazard.second = {0, "gemm_tiled", 0x50, "gemm_tiled.cu", 110};
  p.trace.hazards = {hazard};
  const auto marks = sassMarks(p);
  ASSERT_EQ(marks.size(), 4u);
  EXPECT_EQ(marks[0].textLine, 17);  // in text order
  EXPECT_EQ(marks[0].label, "oob_read");
  EXPECT_TRUE(marks[0].trace);
  EXPECT_EQ(marks[0].note, "trace: oob_read at gemm_tiled+0x20: 4096 bad accesses of A, 16-byte read");
  EXPECT_EQ(marks[1].textLine, 21);
  EXPECT_EQ(marks[2].textLine, 22);
  EXPECT_EQ(marks[2].label, "RAW hazard");
  EXPECT_EQ(marks[3].textLine, 29);
  EXPECT_EQ(marks[3].severity, 2);
  EXPECT_EQ(marks[3].label, "oob_write");
  EXPECT_EQ(marks[3].note, "oob_write at gemm_tiled+0xb0: C: 8-byte write 0 bytes past its end");
  EXPECT_FALSE(marks[3].trace);
  const auto tags = stageMarkTags(marks);
  EXPECT_EQ(tags, (std::map<int, std::string>{{17, "oob_read (trace)"},
                                              {21, "RAW hazard (trace)"},
                                              {22, "RAW hazard (trace)"},
                                              {29, "oob_write (finding)"}}));
  // A finding and the trace at one instruction: one tag that names both.
  std::vector<StageMark> both = {marks[3],
                                 {29, 2, "trace: oob_write at ...", "oob_write", true},
                                 {29, 2, "trace: oob_read at ...", "oob_read", true}};
  EXPECT_EQ(stageMarkTags(both).at(29), "oob_write, oob_read (finding, trace)");
  // PC sampling's hottest instructions: those with at least 1 % of the samples.
  p.counters.pcSampling.collected = true;
  p.counters.pcSampling.totalSamples = 1000;
  p.counters.pcSampling.pcs = {{"gemm_tiled", 0xb0, 400, {{"long_scoreboard", 300}, {"selected", 100}}},
                               {"gemm_tiled", 0x40, 5, {{"barrier", 5}}}};
  const auto hot = sassMarks(p);
  ASSERT_EQ(hot.size(), 5u);
  EXPECT_EQ(hot[4].textLine, 29);
  EXPECT_TRUE(hot[4].sampled);
  EXPECT_EQ(hot[4].label, "hot 40.0 % long_scoreboard");
  EXPECT_EQ(
      hot[4].note,
      "samples: hot 40.0 % long_scoreboard at gemm_tiled+0xb0: 400 of 1000 samples; long_scoreboard 300, "
      "selected 100");
  EXPECT_EQ(stageMarkTags(hot).at(29), "oob_write, hot 40.0 % long_scoreboard (finding, samples)");
  p.counters.pcSampling = {};
  p.findings[1].severity = Severity::warning;
  EXPECT_EQ(sassMarks(p)[3].severity, 1);
  p.stages.stages.pop_back();  // no SASS stage: nothing to mark
  EXPECT_TRUE(sassMarks(p).empty());
}

TEST(StageMap, ExcerptQuotesTheLinesInTextOrder) {
  const CompilerStage sass = sassStage();
  std::size_t more = 99;
  const auto all = stageExcerpt(sass, "gemm_tiled.cu", 72, 10, &more);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(more, 0u);
  EXPECT_EQ(all[0].textLine, 16);
  EXPECT_EQ(all[0].text, "/*0010*/                   LDG.E.U16.CONSTANT R30, desc[UR10][R30.64] ;");
  EXPECT_EQ(all[2].text, ".L_x_0:");
  const auto two = stageExcerpt(sass, "gemm_tiled.cu", 183, 2, &more);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(more, 3u);
  EXPECT_TRUE(stageExcerpt(sass, "gemm_tiled.cu", 5, 10).empty());
}

TEST(StageMap, CompactSassLinesKeepTheirContent) {
  EXPECT_EQ(compactSassLine("        /*0020*/              @!P3 LDG.E.128 R4, desc[UR10][R28.64] ;"),
            "/*0020*/ @!P3 LDG.E.128 R4, desc[UR10][R28.64] ;");
  EXPECT_EQ(compactSassLine("        /*00c0*/                   EXIT ;\r"), "/*00c0*/ EXIT ;");
  EXPECT_EQ(
      compactSassLine("\t//## File \"/src/gemm_tiled.cu\", line 110 inlined at \"/a/b/k.cuh\", line 145"),
      "//## File \"gemm_tiled.cu\", line 110 inlined at \"k.cuh\", line 145");
  EXPECT_EQ(compactSassLine("//## File \"/unterminated"), "//## File \"/unterminated");
  EXPECT_EQ(compactSassLine("        /*0000*/"), "/*0000*/");
  EXPECT_EQ(compactSassLine(".L_x_0:"), ".L_x_0:");
  EXPECT_EQ(compactSassLine(""), "");
}

TEST(StageMap, SummarySentenceSaysWidthsVectorsTensorCoresAndSpills) {
  const Point p = gemmPoint();
  const StageLineSummary* load = p.stages.find("gemm_tiled.cu", 72);
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(stageLineSummaryText(*load),
            "3 SASS instructions; global loads 1×2 B, 1×4 B, 1×16 B (1 of 3 vectorised)");
  const StageLineSummary* mma = p.stages.find("gemm_tiled.cu", 110);
  EXPECT_EQ(stageLineSummaryText(*mma),
            "4 SASS instructions; shared loads 1×16 B (vectorised); shared stores 1×16 B (vectorised); "
            "2 tensor-core (HMMA.16816.F32, HGMMA.64x128x16.F32)");
  const StageLineSummary* spill = p.stages.find("gemm_tiled.cu", 183);
  EXPECT_EQ(stageLineSummaryText(*spill),
            "5 SASS instructions; global loads 1×16 B (vectorised); global stores 1×8 B (vectorised); "
            "shared stores 1×16 B (vectorised); spills: 1 STL, 1 LDL");
  StageLineSummary scalar;
  scalar.sass = 2;
  scalar.ptx = 3;
  scalar.globalStores = {{2, 2}};
  scalar.sharedLoads = {{0, 1}};
  EXPECT_EQ(stageLineSummaryText(scalar),
            "2 SASS instructions (3 PTX); global stores 2×2 B (none vectorised); shared loads 1×block (TMA)");
  EXPECT_EQ(vectorisedCount({{4, 3}, {8, 2}, {16, 5}}), 7);
}

TEST(StageMap, ExportsQuoteTheSassOfTheFindingsLines) {
  Report r;
  r.verb = "run";
  Point p = gemmPoint();
  Finding store;
  store.category = "oob_write";
  store.message = "C: past its end";
  store.location.file = "gemm_tiled.cu";
  store.location.line = 183;
  store.location.function = "gemm_tiled";
  store.location.sassOffset = 0xb0;
  p.findings = {store};
  r.points = {p};
  r.findings = {store};
  const Document doc = buildDocument(r);
  const DocSection* s = doc.section("sass");
  ASSERT_NE(s, nullptr);
  std::string code, text;
  for (const auto& b : s->blocks) {
    if (const auto* c = std::get_if<DocCode>(&b)) code += c->text;
    if (const auto* t = std::get_if<DocSubheading>(&b)) text += t->text + "\n";
  }
  EXPECT_NE(text.find("SASS of gemm_tiled.cu:183 (sm_90"), std::string::npos) << text;
  // Every instruction of the line, the finding's marked, nvdisasm's padding gone.
  EXPECT_NE(code.find("/*00b0*/ STG.E.64 desc[UR10][R2.64], R10 ;    <- oob_write (finding)\n"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("/*0080*/ STL [R1+0x4], R8 ;\n"), std::string::npos) << code;
  EXPECT_EQ(code.find("LDG.E.U16"), std::string::npos);  // another line's
  const std::string md = renderMarkdown(doc);
  EXPECT_NE(md.find("SASS of the findings' lines"), std::string::npos);
  EXPECT_NE(md.find("<- oob_write (finding)"), std::string::npos);
  // The finding's own entry points there, with its instruction.
  const DocSection* f = doc.section("findings");
  ASSERT_NE(f, nullptr);
  bool named = false;
  for (const auto& b : f->blocks)
    if (const auto* para = std::get_if<DocParagraph>(&b))
      named = named || para->text.find("the finding's instruction: gemm_tiled+0xb0") != std::string::npos;
  EXPECT_TRUE(named);
  // No stages: no section.
  r.points[0].stages = {};
  EXPECT_EQ(buildDocument(r).section("sass"), nullptr);
}

TEST(StageMap, ExportsQuoteTheHottestLineWhereNoFindingNamesIt) {
  Report r;
  r.verb = "run";
  Point p = gemmPoint();
  PcSamplingInfo& pc = p.counters.pcSampling;
  pc.collected = true;
  pc.totalSamples = 1000;
  pc.lines = {{"gemm_tiled.cu", 72, 300, {{"long_scoreboard", 250}}}};
  pc.pcs = {{"gemm_tiled", 0x20, 300, {{"long_scoreboard", 250}}}};
  r.points = {p};
  const Document doc = buildDocument(r);
  const DocSection* s = doc.section("sass");
  ASSERT_NE(s, nullptr) << "a slow kernel without findings still shows where its warps wait";
  std::string code, text;
  for (const auto& b : s->blocks) {
    if (const auto* c = std::get_if<DocCode>(&b)) code += c->text;
    if (const auto* t = std::get_if<DocSubheading>(&b)) text += t->text + "\n";
  }
  EXPECT_NE(text.find("gemm_tiled.cu:72"), std::string::npos) << text;
  EXPECT_NE(text.find("the hottest line: 30.0 % of the samples, most long_scoreboard"), std::string::npos)
      << text;
  EXPECT_NE(code.find("<- hot 30.0 % long_scoreboard (samples)"), std::string::npos) << code;
  // Without samples there is nothing to quote.
  r.points[0].counters.pcSampling = {};
  EXPECT_EQ(buildDocument(r).section("sass"), nullptr);
}

TEST(StageMap, ExportsKeepMarkedInstructionsPastTheCap) {
  // 70 instructions of k.cu:5; the finding at the last, past the 64 quoted.
  std::string text = ".text.k:\n\t//## File \"/src/k.cu\", line 5\n";
  char line[96];
  for (int i = 0; i < 70; ++i) {
    std::snprintf(line, sizeof line, "        /*%04x*/                   %s ;\n", i * 16,
                  i == 69 ? "STG.E [R2.64], R1" : "NOP");
    text += line;
  }
  Report r;
  Point p;
  p.stages.collected = true;
  p.stages.arch = "sm_80";
  p.stages.stages = {makeStage("sass", text, sassSpans(parseNvdisasm(text)))};
  p.stages.lines = summarizeLines(parseNvdisasm(text), "", {});
  Finding f;
  f.category = "oob_write";
  f.location.file = "k.cu";
  f.location.line = 5;
  f.location.function = "k";
  f.location.sassOffset = 69 * 16;
  p.findings = {f};
  r.points = {p};
  r.findings = {f};
  const DocSection* s = buildDocument(r).section("sass");
  ASSERT_NE(s, nullptr);
  std::string code;
  for (const auto& b : s->blocks)
    if (const auto* c = std::get_if<DocCode>(&b)) code += c->text;
  EXPECT_NE(code.find("/*03f0*/ NOP ;\n... 5 more\n/*0450*/ STG.E [R2.64], R1 ;    <- oob_write (finding)\n"),
            std::string::npos)
      << code;
  EXPECT_EQ(code.find("/*0400*/"), std::string::npos);                     // the 65th, unmarked: left out
  EXPECT_EQ(code.find("more", code.find("/*0450*/")), std::string::npos);  // nothing after it was cut
}

}  // namespace
}  // namespace tilescope
