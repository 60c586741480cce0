// Sanitizer reports → structured findings (tilescope/logs/sanitizer.h), on real output: the
// rec_* fixtures recorded on an H100 (scripts/record-sanitizer-fixtures.sh) and reports
// pasted in public issues (tests/data/classify, URLs in expected.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilescope/logs/sanitizer.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

const fs::path kCorpus = fs::path(TILESCOPE_TEST_DATA) / "classify";

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SanitizerReport parse(const std::string& file) { return parseSanitizerLog(readFile(kCorpus / file)); }

}  // namespace

TEST(Sanitizer, MemcheckOutOfBoundsWriteRecordedOnTheZoo) {
  const SanitizerReport r = parse("rec_memcheck_gemm_no_mask.txt");
  EXPECT_EQ(r.tool, "memcheck");
  EXPECT_FALSE(r.legacy);
  EXPECT_EQ(r.errorSummary, 33);
  ASSERT_EQ(r.findings.size(), 2u);  // the three thread reports fold into one, then the API error
  const SanitizerFinding& f = r.findings[0];
  EXPECT_EQ(f.kind, "out_of_bounds");
  EXPECT_EQ(f.access, "write");
  EXPECT_EQ(f.space, "global");
  EXPECT_EQ(f.size, 2);
  EXPECT_EQ(f.kernel, "gemm_tiled");
  ASSERT_TRUE(f.pc);
  EXPECT_EQ(*f.pc, 0x1e40u);
  ASSERT_TRUE(f.thread && f.block);
  EXPECT_EQ(*f.thread, (Index3{32, 0, 0}));
  EXPECT_EQ(*f.block, (Index3{7, 15, 0}));
  ASSERT_TRUE(f.address);
  EXPECT_EQ(*f.address, 0x7f7011bc4e20u);
  EXPECT_EQ(f.allocRelation, "after");
  EXPECT_EQ(*f.allocDistance, 15393u);  // "15,393 bytes after"
  EXPECT_EQ(*f.allocBase, 0x7f7011400000u);
  EXPECT_EQ(*f.allocSize, 8131072u);
  EXPECT_EQ(f.count, 3);
  EXPECT_EQ(f.logLine, 2u);
  const FindingClass c = classifyFinding(f);
  EXPECT_EQ(c.category, "oob_write");
  EXPECT_EQ(c.node, "fault.oob_write");
  const SanitizerFinding& api = r.findings[1];
  EXPECT_EQ(api.kind, "api_error");
  EXPECT_EQ(api.apiError, "CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(api.apiCall, "cuCtxSynchronize");
  EXPECT_EQ(r.primary(), &r.findings[0]);
}

TEST(Sanitizer, TheXmlOfTheSameRunGivesTheSameFinding) {
  const SanitizerReport x = parse("rec_memcheck_gemm_no_mask.xml");
  EXPECT_TRUE(x.xml);
  EXPECT_TRUE(x.xmlError.empty()) << x.xmlError;
  EXPECT_EQ(x.tool, "memcheck");
  ASSERT_EQ(x.findings.size(), 1u);
  const SanitizerFinding& f = x.findings[0];
  EXPECT_EQ(f.kind, "out_of_bounds");
  EXPECT_EQ(f.access, "write");
  EXPECT_EQ(f.space, "global");
  EXPECT_EQ(f.size, 2);
  EXPECT_EQ(f.kernel, "gemm_tiled");
  EXPECT_EQ(*f.pc, 0x1e40u);
  EXPECT_EQ(*f.block, (Index3{7, 15, 0}));
  EXPECT_EQ(*f.thread, (Index3{64, 0, 0}));
  EXPECT_EQ(f.count, 3);
  EXPECT_EQ(classifyFinding(f).category, "oob_write");
}

TEST(Sanitizer, MisalignedGlobalAndSharedAccesses) {
  for (const char* file : {"rec_memcheck_gemm_misaligned.txt", "rec_memcheck_gemm_misaligned.xml"}) {
    SCOPED_TRACE(file);
    const SanitizerReport r = parse(file);
    ASSERT_FALSE(r.findings.empty());
    const SanitizerFinding& f = r.findings[0];
    EXPECT_EQ(f.kind, "misaligned");
    EXPECT_EQ(f.access, "read");
    EXPECT_EQ(f.space, "global");
    EXPECT_EQ(f.size, 16);
    EXPECT_EQ(*f.pc, 0x750u);
    EXPECT_EQ(classifyFinding(f).category, "misaligned_access");
  }
  const SanitizerReport text = parse("rec_memcheck_gemm_misaligned.txt");
  EXPECT_EQ(text.findings[0].allocRelation, "inside");
  EXPECT_EQ(*text.findings[0].allocSize, 2220032u);
  for (const char* file :
       {"rec_memcheck_flash_attn_misaligned.txt", "rec_memcheck_flash_attn_misaligned.xml"}) {
    SCOPED_TRACE(file);
    const SanitizerReport r = parse(file);
    ASSERT_FALSE(r.findings.empty());
    EXPECT_EQ(r.findings[0].space, "shared");
    EXPECT_EQ(r.findings[0].access, "write");
    EXPECT_EQ(r.findings[0].kernel, "flash_attn_fwd");
    EXPECT_EQ(classifyFinding(r.findings[0]).detail, "sanitizer_misaligned_shared");
  }
  EXPECT_EQ(parse("rec_memcheck_flash_attn_misaligned.txt").notPrinted, 1613);
}

TEST(Sanitizer, RacecheckAnalysisReportsWithHazardCounts) {
  const SanitizerReport t = parse("rec_racecheck_softmax_no_sync.txt");
  EXPECT_EQ(t.tool, "racecheck");
  ASSERT_GE(t.findings.size(), 8u);
  const SanitizerFinding& f = t.findings[0];
  EXPECT_EQ(f.kind, "race");
  EXPECT_EQ(f.severity, "error");
  ASSERT_EQ(f.accesses.size(), 8u);
  EXPECT_EQ(f.accesses[0].direction, "write");
  EXPECT_EQ(*f.accesses[0].pc, 0x9c0u);
  EXPECT_EQ(f.accesses[1].direction, "read");
  EXPECT_EQ(f.accesses[1].hazards, 16384);
  EXPECT_EQ(f.hazards, 16384 + 5632 + 2560 + 32 + 1152 + 640 + 64);
  EXPECT_EQ(f.kernel, "softmax_row");
  const FindingClass c = classifyFinding(f);
  EXPECT_EQ(c.category, "race");
  EXPECT_EQ(c.detail, "shared_hazard");
  const SanitizerReport x = parse("rec_racecheck_softmax_no_sync.xml");
  ASSERT_EQ(x.findings.size(), 12u);
  EXPECT_EQ(x.findings[0].accesses.size(), 8u);
  EXPECT_EQ(x.findings[0].accesses[1].hazards, 16384);
  EXPECT_EQ(x.findings[0].kernel, "softmax_row");
}

TEST(Sanitizer, RacecheckHazardReportsNameThreadsAndAddress) {
  const SanitizerReport r = parse("rec_racecheck_hazard_softmax_no_sync.txt");
  EXPECT_EQ(r.hazardsDisplayed, 100);
  EXPECT_EQ(r.raceErrors, 17024);
  EXPECT_EQ(r.raceWarnings, 1008);
  ASSERT_FALSE(r.findings.empty());
  const SanitizerFinding& f = r.findings[0];
  EXPECT_EQ(f.kind, "hazard");
  EXPECT_EQ(f.hazardType, "RAW");
  EXPECT_EQ(f.space, "shared");
  EXPECT_EQ(*f.address, 0x1200u);
  EXPECT_EQ(*f.block, (Index3{0, 0, 0}));
  ASSERT_EQ(f.accesses.size(), 2u);
  EXPECT_EQ(*f.accesses[0].thread, (Index3{896, 0, 0}));
  EXPECT_EQ(f.accesses[1].direction, "read");
  EXPECT_EQ(f.kernel, "softmax_row");
}

TEST(Sanitizer, PastedReportsFromIssues) {
  {  // compute-sanitizer with file:line and the allocation 1 byte past a 10-byte one
    const SanitizerReport r = parse("cs_cucollections539_thrust_write.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.size, 1);
    EXPECT_EQ(f.file,
              "/home/yunsongw/Work/cuCollections/build/_deps/cccl-src/thrust/thrust/system/cuda/detail/"
              "assign_value.h");
    EXPECT_EQ(f.line, 58);
    EXPECT_EQ(*f.pc, 0xd0u);
    EXPECT_EQ(*f.allocDistance, 1u);
    EXPECT_EQ(*f.allocSize, 10u);
    EXPECT_EQ(f.kernel.rfind("void thrust::cuda_cub::assign_value<", 0), 0u);
  }
  {  // "Access to ... is inside the nearest allocation"
    const SanitizerReport r = parse("cs_pytorch196209_inside_alloc.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.allocRelation, "inside");
    EXPECT_EQ(f.size, 256);
    EXPECT_EQ(f.kernel, "bulk_copy_range(unsigned char *, int)");
    EXPECT_EQ(*f.pc, 0x120u);
  }
  {  // legacy cuda-memcheck: "at 0x... in kernel", size without "bytes"
    const SanitizerReport r = parse("cm_quicksilver48_read.txt");
    EXPECT_TRUE(r.legacy);
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.kind, "out_of_bounds");
    EXPECT_EQ(f.access, "read");
    EXPECT_EQ(f.size, 8);
    EXPECT_EQ(*f.pc, 0x2e8u);
    EXPECT_EQ(f.kernel, "CycleTrackingGuts(MonteCarlo*, int, ParticleVault*, ParticleVault*)");
    EXPECT_EQ(*f.thread, (Index3{127, 0, 0}));
    EXPECT_EQ(*f.block, (Index3{194, 0, 0}));
    EXPECT_EQ(classifyFinding(f).category, "oob_read");
  }
  {  // legacy synccheck with -lineinfo: "at 0x... in file.jl:12:kernel"
    const SanitizerReport r = parse("cs_cudanative61_synccheck.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.kind, "barrier");
    EXPECT_EQ(f.tool, "synccheck");
    EXPECT_EQ(f.line, 12);
    EXPECT_EQ(f.kernel, "ptxcall_computeBetasAndGradKernel_3");
    EXPECT_EQ(classifyFinding(f).node, "fault.hang.divergent_barrier");
  }
  {  // a template kernel whose frame names file:line, and the device frame after it
    const SanitizerReport r = parse("cs_mujocowarp664_read.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.file, "array.h");
    EXPECT_EQ(f.line, 908);
    EXPECT_EQ(*f.pc, 0x1dd40u);
    EXPECT_EQ(*f.allocDistance, 209u);
  }
  {  // initcheck, host API side
    const SanitizerReport r = parse("cs_dogqc4_initcheck_host.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.tool, "initcheck");
    EXPECT_EQ(f.apiCall, "cudaMemcpy");
    EXPECT_EQ(f.size, 400);
    EXPECT_EQ(classifyFinding(f).category, "uninitialized_read");
  }
  {  // legacy racecheck at warning level: "WARN:(Warp Level Programming) Potential RAW hazard ..."
    const SanitizerReport r = parse("cs_gunrock844_racecheck_warn.txt");
    EXPECT_TRUE(r.legacy);
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.kind, "hazard");
    EXPECT_EQ(f.severity, "warning");
    EXPECT_EQ(f.hazardType, "RAW");
    EXPECT_EQ(*f.address, 0xf4u);
    EXPECT_EQ(classifyFinding(f).category, "race");
  }
  {  // a misaligned __local__ write
    const SanitizerReport r = parse("cs_fuser2930_local_misaligned.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.space, "local");
    EXPECT_EQ(f.kind, "misaligned");
    EXPECT_EQ(f.line, 2623);
  }
  {  // the access direction is "?" (WGMMA): not attributable to a read or a write
    const SanitizerReport r = parse("cs_sanitizersamples19_wgmma.txt");
    const SanitizerFinding& f = r.findings.at(0);
    EXPECT_EQ(f.access, "");
    EXPECT_EQ(classifyFinding(f).category, "illegal_address");
  }
}

TEST(Sanitizer, CleanRunsHaveNoFindings) {
  for (const char* file :
       {"sanitizer/clean_initcheck_highway_gate.txt", "sanitizer/clean_synccheck_softmax.txt",
        "sanitizer/clean_initcheck_highway_gate.xml"}) {
    const SanitizerReport r = parse(file);
    EXPECT_TRUE(r.findings.empty()) << file;
    EXPECT_EQ(r.primary(), nullptr);
  }
  EXPECT_EQ(parse("sanitizer/clean_synccheck_softmax.txt").errorSummary, 0);
}

TEST(Sanitizer, RaceOnOneLine) {
  const SanitizerReport r = parseSanitizerText(
      "========= Error: Race reported between Write access at 0x50 in kernel(float *) and Read access at "
      "0x90 in "
      "kernel(float *)\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
  ASSERT_EQ(r.findings.size(), 1u);
  ASSERT_EQ(r.findings[0].accesses.size(), 2u);
  EXPECT_EQ(*r.findings[0].accesses[1].pc, 0x90u);
  EXPECT_EQ(r.findings[0].accesses[1].kernel, "kernel(float *)");
}

TEST(Sanitizer, DemanglesKernelNames) {
  EXPECT_EQ(demangleKernel("_Z10gemm_tiledPK6__halfS1_PS_iii"),
            "gemm_tiled(__half const*, __half const*, __half*, int, int, int)");
  EXPECT_EQ(demangleKernel("gemm_tiled"), "gemm_tiled");
  EXPECT_EQ(demangleKernel("_Zgarbage"), "_Zgarbage");
  const SanitizerReport r = parseSanitizerText(
      "========= Invalid __global__ read of size 4 bytes\n=========     at _Z6kernelPfi+0x70\n"
      "=========     by thread (1,0,0) in block (0,0,0)\n=========     Address 0x10 is out of bounds\n");
  EXPECT_EQ(r.findings.at(0).kernelDemangled, "kernel(float*, int)");
}

TEST(Sanitizer, MalformedXmlIsAnErrorNotACrash) {
  EXPECT_FALSE(parseSanitizerXml("<ComputeSanitizerOutput><record><kind>Precise").xmlError.empty());
  EXPECT_FALSE(parseSanitizerXml("<ComputeSanitizerOutput></Other>").xmlError.empty());
  std::string deep = "<ComputeSanitizerOutput>";
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  const SanitizerReport r = parseSanitizerXml(deep);
  EXPECT_NE(r.xmlError.find("nested deeper"), std::string::npos) << r.xmlError;
  // Entities are decoded.
  const SanitizerReport e = parseSanitizerXml(
      "<ComputeSanitizerOutput><record><kind>Precise</kind><what><text>Invalid __global__ read &amp; "
      "&lt;x&gt;</text>"
      "<direction>read</direction><error>out of "
      "bounds</error></what><where><func>k&lt;int&gt;</func><pc>0x10</pc></where>"
      "</record></ComputeSanitizerOutput>");
  ASSERT_EQ(e.findings.size(), 1u);
  EXPECT_EQ(e.findings[0].kernel, "k<int>");
  EXPECT_EQ(e.findings[0].message, "Invalid __global__ read & <x>");
}

TEST(Sanitizer, ReportFindingsCarryLocationAndEvidence) {
  const std::vector<Finding> fs = reportFindings(parse("rec_memcheck_gemm_no_mask.txt"));
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].category, "oob_write");
  EXPECT_EQ(fs[0].treeNode, "fault.oob_write");
  EXPECT_EQ(fs[0].location.kernel, "gemm_tiled");
  EXPECT_EQ(fs[0].location.cta, (Index{7, 15, 0}));
  EXPECT_EQ(fs[0].location.block, (Index{7, 15, 0}));
  EXPECT_EQ(fs[0].evidence["nearest_allocation"]["distance"], 15393);
  EXPECT_NE(fs[0].message.find("15,393 bytes after an allocation of 8,131,072 bytes"), std::string::npos)
      << fs[0].message;
  EXPECT_EQ(fs[1].category, "illegal_address");
}
