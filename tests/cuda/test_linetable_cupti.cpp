// core's line table (trace_lines.h, shared by the tracer and PC sampling)
// against CUPTI's own SASS-to-source lookup, on kernels compiled here with
// NVRTC -lineinfo: every instruction of a kernel must get the line CUPTI gives.
// Needs the toolkit, not a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tilescope/cuda/compile.h"
#include "tilescope/cuda/pc_sampling.h"
#include "tilescope/trace/trace_lines.h"

namespace fs = std::filesystem;
using namespace tilescope;

TEST(LineTableCupti, EveryInstructionGetsCuptisLine) {
  const fs::path cache = fs::temp_directory_path() / ("tilescope-linetable-" + std::to_string(::getpid()));
  setenv("TILESCOPE_CACHE_DIR", cache.c_str(), 1);
  for (const char* entry : {"transpose", "other"}) {
    KernelSpec k;
    k.source = "two_kernels.cu";
    k.sourcePath = fs::path(TILESCOPE_TEST_DATA) / "linetable" / "two_kernels.cu";
    k.entry = entry;
    k.compiler = "nvrtc";
    k.options = {"-lineinfo"};
    cuda::CompiledKernel ck;
    CompileInfo info = cuda::compileKernel(k, {}, "sm_90", &ck);
    ASSERT_TRUE(info.ok) << info.log;
    ASSERT_EQ(ck.format, cuda::CompiledKernel::Format::cubin);
    std::string error;
    LineTable table = parseCubinLineTable(ck.image, &error);
    ASSERT_EQ(error, "");
    ASSERT_FALSE(table.empty()) << "NVRTC was not given -lineinfo";
    // The kernel's code size, from its symbol: CUPTI answers for any offset.
    std::uint64_t size = 0;
    for (const CubinSymbol& sym : cubinSymbols(ck.image))
      if (sym.function && sym.name == entry) size = sym.size;
    ASSERT_GT(size, 0u) << entry;
    int compared = 0;
    for (std::uint64_t pc = 0; pc < size; pc += 16) {  // SASS instructions are 16 bytes from sm_70 on
      const LineRow* ours = table.lookup(entry, pc);
      ASSERT_TRUE(ours) << entry << "+" << pc;
      auto theirs = cuda::cuptiSourceLine(ck.image, entry, pc);
      ASSERT_TRUE(theirs) << entry << "+" << pc;
      EXPECT_EQ(ours->line, theirs->line) << entry << "+0x" << std::hex << pc;
      EXPECT_EQ(fs::path(ours->file).filename(), fs::path(theirs->file).filename());
      ++compared;
    }
    EXPECT_GE(compared, 8) << entry;
  }
  fs::remove_all(cache);
  unsetenv("TILESCOPE_CACHE_DIR");
}
