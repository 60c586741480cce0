// Fuzzes the .npy reader (tilescope/base/npy.h) on a file's bytes in memory.
#include "fuzz_common.h"
#include "tilescope/base/npy.h"

using namespace tilescope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    NpyArray a = parseNpy(fuzz::text(data, size), "fuzz.npy");
    const std::int64_t n = a.header.elements();
    if (n < 0) fuzz::violated("accepted a shape whose element count overflows");
    if (a.data.size() > size) fuzz::violated("more data than the input holds");
    for (DType t :
         {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32, DType::i64, DType::u8, DType::i8})
      (void)npyDescrFits(t, a.header.descr);
  } catch (const NpyError& e) {
    if (std::string(e.what()).empty()) fuzz::violated("NpyError without a message");
  }
  return 0;
}
