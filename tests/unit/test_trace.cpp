// The tracer's pure core (tilescope/trace/trace.h, trace_lines.h) on hand-built data
// and on a cubin whose line table binutils' readelf decoded independently.
#include <gtest/gtest.h>

#include <fstream>

#include "tilescope/diagnose/diagnose.h"
#include "tilescope/trace/trace.h"

using namespace tilescope;

namespace {

std::vector<char> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(TraceLines, CubinLineTableMatchesReadelf) {
  // tests/data/trace/lines_kernel_sm90.cubin: nvcc -cubin -arch=sm_90 -lineinfo lines_kernel.cu.
  // `readelf --debug-dump=decodedline` lists: 0x0 line 1, 0x10 2, 0x20 4, 0x30 2, 0x40 4,
  // 0x50 2, 0x70 3, 0x80 4, 0x90 3, 0xc0 4, 0x140 5, 0x150 6, 0x180 7, end 0x280.
  std::string error;
  LineTable t = parseCubinLineTable(readBytes(TILESCOPE_TEST_DATA "/trace/lines_kernel_sm90.cubin"), &error);
  ASSERT_FALSE(t.empty()) << error;
  const std::pair<std::uint64_t, int> expect[] = {{0x0, 1},   {0x10, 2},  {0x20, 4},  {0x30, 2},  {0x40, 4},
                                                  {0x50, 2},  {0x60, 2},  {0x70, 3},  {0x80, 4},  {0x90, 3},
                                                  {0xb0, 3},  {0xc0, 4},  {0x130, 4}, {0x140, 5}, {0x150, 6},
                                                  {0x170, 6}, {0x180, 7}, {0x270, 7}};
  for (const auto& [off, line] : expect) {
    const LineRow* row = t.lookup("k", off);
    ASSERT_NE(row, nullptr) << "offset " << off;
    EXPECT_EQ(row->line, line) << "offset 0x" << std::hex << off;
    EXPECT_NE(row->file.find("lines_kernel.cu"), std::string::npos);
  }
  EXPECT_EQ(t.lookup("k", 0x280), nullptr) << "past the end of the sequence";
  EXPECT_EQ(t.lookup("other", 0x10), nullptr);
}

TEST(TraceLines, CubinSymbolsListTheKernel) {
  auto syms = cubinSymbols(readBytes(TILESCOPE_TEST_DATA "/trace/lines_kernel_sm90.cubin"));
  auto it = std::find_if(syms.begin(), syms.end(), [](const CubinSymbol& s) { return s.name == "k"; });
  ASSERT_NE(it, syms.end());
  EXPECT_TRUE(it->function);
  EXPECT_EQ(it->size, 0x280u);
}

TEST(TraceLines, NotACubin) {
  std::string error;
  std::vector<char> junk(100, 'x');
  EXPECT_TRUE(parseCubinLineTable(junk, &error).empty());
  EXPECT_NE(error.find("ELF"), std::string::npos);
  EXPECT_TRUE(cubinSymbols(junk).empty());
}

TEST(TraceLines, HandWrittenProgram) {
  // A DWARF v2 unit: one file "a.cu"; set_address 0 (relocated to "f" + 0x20),
  // line 10 copy, special opcode advancing 16 bytes and 1 line, end_sequence.
  std::vector<std::uint8_t> prog = {
      0,
      9,
      2,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,  // DW_LNE_set_address (9 bytes: sub-op + 8)
      3,
      9,                       // advance_line 9 -> 10
      1,                       // copy
      0x0a + 5 + 14 * 16 + 1,  // special: address += 16, line += 1 (line_base -5, range 14, opcode_base 10)
      0,
      1,
      1};  // end_sequence
  std::vector<std::uint8_t> header = {
      2,   0,                   // version 2
      0,   0,   0,    0,        // header_length (patched)
      1,   1,   0xfb, 14,  10,  // min_inst, default_is_stmt, line_base -5, line_range, opcode_base
      0,   1,   1,    1,   1,  0, 0, 0, 1,   // standard_opcode_lengths[1..9]
      0,                                     // no include dirs
      'a', '.', 'c',  'u', 0,  0, 0, 0, 0};  // end of files
  const std::uint32_t headerLength = std::uint32_t(header.size() - 6);
  std::memcpy(&header[2], &headerLength, 4);
  std::vector<std::uint8_t> unit;
  const std::uint32_t unitLength = std::uint32_t(header.size() + prog.size());
  unit.resize(4);
  std::memcpy(unit.data(), &unitLength, 4);
  unit.insert(unit.end(), header.begin(), header.end());
  const std::uint64_t addrField = unit.size() + 3;  // after {0, 9, 2}
  unit.insert(unit.end(), prog.begin(), prog.end());
  DebugLineInput in{unit.data(), unit.size(), {{addrField, "f", 0x20}}};
  std::string error;
  auto rows = decodeDebugLine(in, &error);
  ASSERT_EQ(rows.size(), 3u) << error;
  EXPECT_EQ(rows[0].function, "f");
  EXPECT_EQ(rows[0].offset, 0x20u);
  EXPECT_EQ(rows[0].line, 10);
  EXPECT_EQ(rows[0].file, "a.cu");
  EXPECT_EQ(rows[1].offset, 0x30u);
  EXPECT_EQ(rows[1].line, 11);
  EXPECT_EQ(rows[2].line, 0) << "end of sequence";
}

TEST(TraceBanks, WavefrontModel) {
  std::array<std::uint32_t, 32> off{};
  // Consecutive floats: one wavefront.
  for (int l = 0; l < 32; ++l) off[l] = 4 * l;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 4), std::make_pair(1, 1));
  // A column of a 32x32 float tile: every lane in bank 0 -> 32-way.
  for (int l = 0; l < 32; ++l) off[l] = 4 * 32 * l;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 4), std::make_pair(32, 1));
  // The padded tile (33 floats a row): conflict-free.
  for (int l = 0; l < 32; ++l) off[l] = 4 * 33 * l;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 4), std::make_pair(1, 1));
  // A broadcast: one word for all.
  for (int l = 0; l < 32; ++l) off[l] = 64;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 4), std::make_pair(1, 1));
  // Half the lanes, stride 2 words: 2-way among the active ones.
  for (int l = 0; l < 32; ++l) off[l] = 8 * l;
  EXPECT_EQ(sharedWavefronts(off, 0x0000ffffu, 4), std::make_pair(1, 1));
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 4), std::make_pair(2, 1));
  // 8-byte and 16-byte consecutive accesses: 2 and 4 phases, no conflict.
  for (int l = 0; l < 32; ++l) off[l] = 8 * l;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 8), std::make_pair(2, 2));
  for (int l = 0; l < 32; ++l) off[l] = 16 * l;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 16), std::make_pair(4, 4));
  // 16-byte accesses 32 bytes apart: two lanes per 16-byte bank in each phase.
  for (int l = 0; l < 32; ++l) off[l] = 32 * l;
  EXPECT_EQ(sharedWavefronts(off, 0xffffffffu, 16), std::make_pair(8, 4));
}

TEST(TraceRle, RoundTrip) {
  std::vector<std::int64_t> v = {-1, -1, -1, 3, 3, 4, -1};
  auto r = rleEncode(v);
  EXPECT_EQ(r, (std::vector<std::int64_t>{-1, 3, 3, 2, 4, 1, -1, 1}));
  EXPECT_EQ(rleDecode(r), v);
  EXPECT_TRUE(rleEncode({}).empty());
}

namespace {

// A 4x4 f32 output C (base 0x1000) and a 4x4 input A (base 0x3000), with a
// kernel `k` at 0x10000 (256 bytes) whose line table maps 0x40 to line 12 and
// 0x80 to line 20, grid (2,2,1) x block (16,2,1).
struct Fixture {
  TraceCapture c;
  LineTable lines;
  Fixture() {
    c.grid = {2, 2, 1};
    c.block = {16, 2, 1};
    c.kernel = "k";
    c.functions = {{"k", 0x10000, 0x100}};
    TraceTensor C;
    C.name = "C";
    C.elemSize = 4;
    C.output = C.trackInit = true;
    C.base = 0x1000, C.bytes = 64, C.allocBegin = 0x800, C.allocEnd = 0x1800;
    C.shape = {4, 4};
    C.pitch = 4, C.rows = 4, C.cellRows = 4, C.cellCols = 4;
    C.readMin.assign(16, -1), C.readMax.assign(16, -1), C.writeMin.assign(16, -1), C.writeMax.assign(16, -1);
    for (int i = 0; i < 16; ++i) C.writeMin[i] = C.writeMax[i] = (i / 8) * 2 + (i % 4) / 2;  // 2x2 tiles
    C.writeMax[5] = 3;  // element 5: two writers
    C.writeBoxes.resize(4);
    C.writeBoxes[0] = {0, 1, 0, 1, 4};
    c.tensors.push_back(C);
    TraceTensor A = C;
    A.name = "A";
    A.output = A.trackInit = false;
    A.base = 0x3000, A.allocBegin = 0x2800, A.allocEnd = 0x3800;
    A.writeMin.assign(16, -1), A.writeMax.assign(16, -1), A.writeBoxes.clear();
    c.tensors.push_back(A);
    lines.add({"k", 0x0, "/build/gemm.cu", 10});
    lines.add({"k", 0x40, "/build/gemm.cu", 12});
    lines.add({"k", 0x80, "/build/gemm.cu", 20});
    lines.add({"k", 0x100, "/build/gemm.cu", 0});
  }
  static std::uint64_t key(std::uint32_t block, std::uint32_t thread) {
    return (std::uint64_t(block) << 32) | thread;
  }
};

}  // namespace

TEST(TraceAnalysis, OobWriteLocatedAtItsFirstAccess) {
  Fixture fx;
  TracePc pc;
  pc.pc = 0x10040;
  pc.execs = 4, pc.threads = 128, pc.faults = 3, pc.flags = 0x12;
  pc.firstFaultKey = Fixture::key(1, 5);  // block (1,0,0) thread 5
  fx.c.pcs.push_back(pc);
  // Three records at the PC: the list holds a later one first (arrival order).
  TraceRecord late{TraceFaultKind::oob_write, 0, 4, 2, 0x10040, 0x1000 + 64 + 8, {1, 1, 0}, {0, 0, 0}};
  TraceRecord first{TraceFaultKind::oob_write, 0, 4, 2, 0x10040, 0x1000 + 64 + 4, {1, 0, 0}, {5, 0, 0}};
  fx.c.records = {late, first};
  TraceOptionsForAnalysis o;
  o.source = "kernels/gemm.cu";
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, o);
  ASSERT_EQ(a.info.faults.size(), 1u);
  const TraceFault& f = a.info.faults[0];
  EXPECT_EQ(f.kind, "oob_write");
  EXPECT_EQ(f.tensor, "C");
  EXPECT_EQ(f.block, (Dim3{1, 0, 0}));
  EXPECT_EQ(f.thread, (Dim3{5, 0, 0}));
  EXPECT_TRUE(f.exact);
  EXPECT_EQ(f.bytesPastEnd, 4);
  EXPECT_EQ(f.element, (std::vector<std::int64_t>{4, 1})) << "element 17 of C[4, 4]: row 4, column 1";
  EXPECT_EQ(f.site.line, 12);
  EXPECT_EQ(f.site.file, "kernels/gemm.cu") << "the config's path stands for the compiler's";
  EXPECT_EQ(f.site.sassOffset, 0x40u);
  EXPECT_EQ(f.count, 3u);
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& fd = a.findings[0];
  EXPECT_EQ(fd.category, "oob_write");
  EXPECT_EQ(fd.tensor, "C");
  EXPECT_EQ(fd.location.line, 12);
  EXPECT_EQ(fd.location.thread, (Index{5, 0, 0}));
  EXPECT_EQ(fd.location.block, (Index{1, 0, 0}));
  EXPECT_EQ(fd.location.cta, (Index{1, 0, 0}));
  ASSERT_TRUE(fd.location.bytesPastEnd);
  EXPECT_EQ(fd.location.bytesPastEnd->first, 4);
  ASSERT_TRUE(fd.location.elements);
  EXPECT_EQ(fd.location.elements->first, (Index{4, 1}));
  ASSERT_TRUE(fd.location.access);
  EXPECT_EQ(fd.location.access->kind, "write");
  EXPECT_NE(fd.message.find("gemm.cu:12"), std::string::npos) << fd.message;
  EXPECT_EQ(a.oobWriteTensors, std::vector<std::string>{"C"});
  EXPECT_FALSE(a.wouldFault) << "a write into the guard zone completes";
}

TEST(TraceAnalysis, FirstKeyWithoutItsRecordIsMarkedInexact) {
  Fixture fx;
  TracePc pc;
  pc.pc = 0x10080;
  pc.faults = 9;
  pc.firstFaultKey = Fixture::key(0, 2);
  fx.c.pcs.push_back(pc);
  fx.c.records = {{TraceFaultKind::misaligned, 1, 16, 1, 0x10080, 0x3000 + 8, {3, 0, 0}, {1, 0, 0}}};
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, {});
  ASSERT_EQ(a.info.faults.size(), 1u);
  EXPECT_FALSE(a.info.faults[0].exact);
  EXPECT_EQ(a.info.faults[0].block, (Dim3{0, 0, 0})) << "the key's block, not the record's";
  EXPECT_EQ(a.info.faults[0].thread, (Dim3{2, 0, 0}));
  EXPECT_TRUE(a.wouldFault);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].category, "misaligned_access");
  EXPECT_EQ(a.findings[0].tensor, "A");
  EXPECT_EQ(a.findings[0].location.line, 20);
}

TEST(TraceAnalysis, WildAccessNamesTheNearestTensor) {
  Fixture fx;
  TracePc pc;
  pc.pc = 0x10040;
  pc.faults = 1;
  pc.firstFaultKey = Fixture::key(2, 0);
  fx.c.pcs.push_back(pc);
  fx.c.records = {{TraceFaultKind::wild, -1, 4, 1, 0x10040, 0x3000 + 0x10000, {0, 1, 0}, {0, 0, 0}}};
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, {});
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].category, "illegal_address");
  EXPECT_EQ(a.findings[0].tensor, "A");
  ASSERT_TRUE(a.findings[0].location.bytesPastEnd);
  EXPECT_EQ(a.findings[0].location.bytesPastEnd->first, 0x10000 - 64);
  EXPECT_TRUE(a.wouldFault);
}

// A wrapped index that lands in the generic window of local memory: the
// patch stops the warp and flags the record; the finding says where it went.
TEST(TraceAnalysis, WildAccessInTheLocalWindowSaysSo) {
  Fixture fx;
  TracePc pc;
  pc.pc = 0x10040;
  pc.faults = 1;
  pc.firstFaultKey = Fixture::key(0, 0);
  fx.c.pcs.push_back(pc);
  fx.c.records = {{TraceFaultKind::wild, -1, 4, 2 | 0x200, 0x10040, 0x7fff00100000ull, {0, 0, 0}, {0, 0, 0}}};
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, {});
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].category, "illegal_address");
  EXPECT_NE(a.findings[0].message.find("generic window of local memory"), std::string::npos)
      << a.findings[0].message;
  ASSERT_EQ(a.info.faults.size(), 1u);
  EXPECT_EQ(a.info.faults[0].window, "local");
  EXPECT_TRUE(a.wouldFault);
  // Without the flag the same record names no window.
  fx.c.records[0].flags = 2;
  EXPECT_EQ(analyzeTrace(fx.c, fx.lines, {}, {}).info.faults[0].window, "");
}

TEST(TraceAnalysis, UninitialisedReadAndTileHint) {
  Fixture fx;
  TracePc pc;
  pc.pc = 0x10080;
  pc.uninit = 16;
  pc.firstUninitKey = Fixture::key(0, 0);
  fx.c.pcs.push_back(pc);
  fx.c.records = {{TraceFaultKind::uninit, 0, 4, 1, 0x10080, 0x1000, {0, 0, 0}, {0, 0, 0}}};
  TileLookup tiles = [](const Dim3& b) -> std::optional<TraceTileHint> {
    return TraceTileHint{"C", {std::int64_t(b[1]) * 2, std::int64_t(b[0]) * 2}, {2, 2}};
  };
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, tiles, {});
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].category, "uninitialized_read");
  EXPECT_EQ(a.findings[0].treeNode, "wrong.uninitialized_read");
  ASSERT_TRUE(a.info.faults[0].tile);
  EXPECT_EQ(a.info.faults[0].tile->origin, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(a.findings[0].location.tile, (Index{0, 0}));  // origin [0, 0] of extent [2, 2]
}

TEST(TraceAnalysis, HazardsBecomeOneRaceWithBothLines) {
  Fixture fx;
  fx.c.hazards = {{HazardKind::raw, 0x10040, 0x10080, 7, 128, 17, 2, {1, 1, 0}},
                  {HazardKind::war, 0x10080, 0x10040, 2, 128, 2, 40, {0, 0, 0}}};
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, {});
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.category, "race");
  EXPECT_EQ(f.detail, "shared_hazard");
  EXPECT_EQ(f.location.extra["first"]["line"], 12);
  EXPECT_EQ(f.location.extra["second"]["line"], 20);
  EXPECT_EQ(f.location.line, 20) << "where the second access collided";
  EXPECT_EQ(f.location.extra["first"]["thread"], nlohmann::json({1, 1, 0})) << "thread 17 of a 16 x 2 block";
  EXPECT_EQ(f.evidence["hazards"], 9);
  EXPECT_NE(f.message.find("RAW"), std::string::npos);
}

// A kernel that orders shared memory with mbarriers (cuDNN's and CUTLASS's
// Hopper kernels) gets its hazards as an unproven warning, never an error:
// the tracker does not follow that ordering.
TEST(TraceAnalysis, HazardsInAnMbarrierKernelAreUnproven) {
  Fixture fx;
  fx.c.hazards = {{HazardKind::raw, 0x10040, 0x10080, 7, 128, 17, 2, {1, 1, 0}}};
  fx.c.mbarrierOps = 96;
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, {});
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.category, "race");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_EQ(f.detail, "shared_hazard_unproven");
  EXPECT_EQ(f.evidence["mbarrier_ops"], 96);
  EXPECT_NE(f.message.find("racecheck"), std::string::npos) << f.message;
  EXPECT_EQ(a.info.counts.mbarrierOps, 96u);
}

TEST(TraceAnalysis, BankConflictsNameTheWorstLine) {
  Fixture fx;
  TracePc a0, a1;
  a0.pc = 0x10040, a0.execs = 10, a0.wavefronts = 10, a0.ideal = 10, a0.maxWays = 1, a0.flags = 0x21;
  a1.pc = 0x10080, a1.execs = 10, a1.wavefronts = 320, a1.ideal = 10, a1.maxWays = 32, a1.flags = 0x22;
  fx.c.pcs = {a0, a1};
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, {});
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].category, "bank_conflicts");
  EXPECT_EQ(a.findings[0].severity, Severity::warning);
  EXPECT_EQ(a.findings[0].location.line, 20);
  EXPECT_EQ(a.findings[0].evidence["worst_lines"][0]["max_ways"], 32);
  ASSERT_EQ(a.info.lines.size(), 2u);
  EXPECT_EQ(a.info.lines[1].maxWays, 32u);
  EXPECT_EQ(a.info.lines[1].spaces, std::vector<std::string>{"shared"});
  // Below the threshold: no finding.
  fx.c.pcs[1].wavefronts = 11;
  EXPECT_TRUE(analyzeTrace(fx.c, fx.lines, {}, {}).findings.empty());
}

TEST(TraceAnalysis, FootprintsCountWritersAndDownsample) {
  Fixture fx;
  TraceOptionsForAnalysis o;
  TraceAnalysis a = analyzeTrace(fx.c, fx.lines, {}, o);
  ASSERT_EQ(a.info.footprints.size(), 2u);
  const TraceFootprint& fp = a.info.footprints[0];
  EXPECT_EQ(fp.tensor, "C");
  EXPECT_TRUE(fp.exact);
  EXPECT_EQ(fp.cellsWritten, 16);
  EXPECT_EQ(fp.cellsMultiWriter, 1);
  EXPECT_EQ(fp.writeMin[0], 0);
  EXPECT_EQ(fp.writeMin[15], 3);
  ASSERT_EQ(fp.writeBoxes.size(), 1u);
  EXPECT_EQ(fp.writeBoxes[0].count, 4);
  o.reportCells = 4;
  const TraceFootprint small = analyzeTrace(fx.c, fx.lines, {}, o).info.footprints[0];
  EXPECT_FALSE(small.exact);
  EXPECT_EQ(small.cellRows * small.cellCols, 4);
  EXPECT_EQ(small.cellH, 2);
  EXPECT_EQ(small.writeMin, (std::vector<std::int64_t>{0, 1, 2, 3})) << "one 2x2 tile per cell";
  EXPECT_EQ(small.writeMax[0], 3) << "element 5's second writer shows in its cell's maximum";
}

TEST(TraceAnalysis, AMapTheDeviceFoldedGivesTheFootprintOfTheHostFold) {
  Fixture fx;
  TraceOptionsForAnalysis o;
  o.reportCells = 4;
  const TraceFootprint hostFold = analyzeTrace(fx.c, fx.lines, {}, o).info.footprints[0];
  // What trace_reduce.cu leaves for C at the same size: each 2x2 block's lowest
  // minimum and highest maximum, and the counts taken on the element map.
  const auto [fh, fw] = footprintFold(4, 4, o.reportCells);
  ASSERT_EQ(fh, 2);
  ASSERT_EQ(fw, 2);
  TraceTensor& C = fx.c.tensors[0];
  std::vector<std::int64_t> wMin(4, -1), wMax(4, -1);
  for (int i = 0; i < 16; ++i) {
    const int b = (i / 4 / fh) * 2 + (i % 4) / fw;
    if (wMin[b] < 0 || C.writeMin[i] < wMin[b]) wMin[b] = C.writeMin[i];
    wMax[b] = std::max(wMax[b], C.writeMax[i]);
  }
  C.writeMin = wMin, C.writeMax = wMax;
  C.readMin.assign(4, -1), C.readMax.assign(4, -1);
  C.cellH = fh, C.cellW = fw, C.cellRows = 2, C.cellCols = 2;
  C.deviceCounts = TraceTensor::MapCounts{0, 16, 1};
  const TraceFootprint deviceFold = analyzeTrace(fx.c, fx.lines, {}, o).info.footprints[0];
  EXPECT_EQ(deviceFold, hostFold);
  EXPECT_EQ(deviceFold.cellsMultiWriter, 1) << "counted on the element map, not the folded one";
  // The fold halves the finer axis first.
  EXPECT_EQ(footprintFold(1, 1024, 64), std::make_pair(1, 16));
  EXPECT_EQ(footprintFold(2048, 2048, 65536), std::make_pair(8, 8));
  EXPECT_EQ(footprintFold(10, 10, 1000), std::make_pair(1, 1));
}

TEST(TraceInfoJson, RoundTripOfAFullSection) {
  Fixture fx;
  TracePc pc;
  pc.pc = 0x10040, pc.faults = 1, pc.firstFaultKey = 0, pc.execs = 3, pc.threads = 70, pc.flags = 0x12;
  fx.c.pcs.push_back(pc);
  fx.c.records = {{TraceFaultKind::oob_write, 0, 4, 2, 0x10040, 0x1000 + 64, {0, 0, 0}, {0, 0, 0}}};
  fx.c.hazards = {{HazardKind::waw, 0x10040, 0x10080, 1, 4, 0, 16, {0, 0, 0}}};
  TileLookup tiles = [](const Dim3&) -> std::optional<TraceTileHint> {
    return TraceTileHint{"C", {0, 0}, {2, 2}};
  };
  TraceInfo info = analyzeTrace(fx.c, fx.lines, tiles, {}).info;
  info.reason = "note";
  const nlohmann::json j = toJson(info);
  EXPECT_EQ(j["schema"], kTraceSchema);
  const TraceInfo back = traceInfoFromJson(j);
  EXPECT_EQ(toJson(back), j);
  EXPECT_EQ(back.faults.at(0).site.pc, 0x10040u);
  EXPECT_EQ(back.footprints.at(0).writeMin, info.footprints.at(0).writeMin);
  EXPECT_EQ(back.hazards.at(0).secondThread, (Dim3{0, 1, 0}));
  // Not traced: only the status and the reason.
  TraceInfo none;
  none.status = "unavailable";
  none.reason = "libsanitizer-public.so not found";
  EXPECT_EQ(toJson(none).size(), 3u);
  EXPECT_EQ(traceInfoFromJson(toJson(none)).reason, none.reason);
}

TEST(TraceInfoJson, PointCarriesItsTrace) {
  Point p;
  p.trace.status = "unavailable";
  p.trace.reason = "another sanitizer is attached";
  const Point back = pointFromJson(toJson(p));
  EXPECT_EQ(back.trace.status, "unavailable");
  EXPECT_FALSE(toJson(Point{}).contains("trace")) << "untraced points carry no section";
}

TEST(TraceDiagnose, EveryDiagnoseTracesWithTheEvidencesQuestion) {
  auto why = [](const Point& p, const std::vector<Finding>& c = {}) {
    const auto w = traceCalledFor(p, c);
    return w ? *w : std::string("(no trace)");
  };
  Point base;
  base.verdict = Verdict::ok;
  // A right output still gets a trace: silent reads past a tensor show there.
  EXPECT_NE(why(base).find("every diagnose traces once"), std::string::npos) << why(base);
  Finding fault;
  fault.category = "misaligned_access";
  base.findings = {fault};
  base.verdict = Verdict::fault;
  EXPECT_NE(why(base).find("faulted"), std::string::npos) << why(base);
  base.trace.status = "ok";  // already traced by `run --trace`
  EXPECT_FALSE(traceCalledFor(base, {}));
  base = Point{};
  Finding inferred;
  inferred.category = "oob_read";
  inferred.evidence = {{"inferred", true}};
  base.verdict = Verdict::incorrect;
  base.findings = {inferred};
  EXPECT_NE(why(base).find("NaN only in partial tiles"), std::string::npos) << why(base);
  base = Point{};
  base.verdict = Verdict::slow;
  EXPECT_NE(why(base).find("every diagnose"), std::string::npos)
      << "slow without shared memory: " << why(base);
  base.launch.sharedBytes = 8192;
  EXPECT_NE(why(base).find("bank conflicts"), std::string::npos) << why(base);
  base = Point{};
  base.verdict = Verdict::incorrect;
  Finding race;
  race.category = "race";
  EXPECT_NE(why(base, {race}).find("trials disagree"), std::string::npos) << why(base, {race});
}

TEST(TraceDiagnose, WildReadsThatTheBaselineSurvivedAreWarnings) {
  auto wild = [](const std::string& access) {
    Finding f;
    f.category = "illegal_address";
    f.detail = "wild";
    f.severity = Severity::error;
    f.message = "8-byte read outside every tensor of the launch";
    f.evidence = {{"source", "trace"}};
    f.location.access = MemoryAccess{access, 8, "global"};
    return f;
  };
  Finding oob = wild("read");
  oob.category = "oob_read";
  oob.detail = "";
  Point base;
  base.verdict = Verdict::ok;
  std::vector<Finding> traced{wild("read"), wild("write"), oob};
  weighWildReads(traced, base);
  EXPECT_EQ(traced[0].severity, Severity::warning);
  EXPECT_EQ(traced[0].evidence.value("baseline", ""), "ok");
  EXPECT_NE(traced[0].message.find("not proven a fault"), std::string::npos) << traced[0].message;
  EXPECT_EQ(traced[1].severity, Severity::error) << "a wild write stays an error";
  EXPECT_EQ(traced[2].severity, Severity::error) << "a read past a tensor's end stays an error";
  // A baseline that failed proves nothing for the reads: they stay errors.
  base.verdict = Verdict::incorrect;
  std::vector<Finding> failing{wild("read")};
  weighWildReads(failing, base);
  EXPECT_EQ(failing[0].severity, Severity::error);
}

TEST(TraceDiagnose, ConclusionsAreTheTracedFindings) {
  Point p;
  Finding traced, guard;
  traced.category = "oob_write";
  traced.evidence = {{"source", "trace"}};
  guard.category = "mismatch";
  guard.evidence = {{"mismatches", 3}};
  p.findings = {guard, traced};
  auto c = traceConclusions(p);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].category, "oob_write");
  EXPECT_EQ(c[0].experiment, "trace");
  Experiment e;
  e.trace = true;
  auto args = e.workerArgs();
  EXPECT_NE(std::find(args.begin(), args.end(), "--trace"), args.end());
}
