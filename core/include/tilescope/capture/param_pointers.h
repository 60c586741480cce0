// Device pointers inside by-value parameters (docs/capture.md, "Structs passed
// by value"). A kernel that takes a struct by value (PyTorch's TensorIterator
// functors, CUTLASS/CuTe `Params`, FlashAttention's `Flash_fwd_params`) gets
// its pointers inside the struct's bytes; the replay must rewrite each one to
// the replay's allocation of the same memory. Nothing marks which 8-byte word
// is a pointer, so this finds them by value, with rules a person can check:
//
// - Only words at a multiple of 8 bytes into the parameter are looked at: the
//   CUDA ABI aligns a pointer member to 8 (a packed struct's misaligned
//   pointers are not found).
// - A word is a candidate only when it is non-zero and lies inside a live
//   device allocation (the recorder asks the driver, cuPointerGetAttributes:
//   host memory, freed memory and other integers are not). A one-past-the-end
//   pointer lies outside its allocation: it stays an integer.
// - A candidate is a *pointer* when it is corroborated: it is its allocation's
//   first byte (where allocators place a tensor), or its allocation is also
//   reached by a top-level pointer parameter or another candidate word.
// - An uncorroborated candidate 4-byte aligned within its allocation is still
//   relocated (an element pointer of a tensor only the struct names), and
//   listed as *unreferenced* in the launch's notes.
// - An uncorroborated candidate at an offset no 4-byte-or-wider element would
//   have is *ambiguous*: two 32-bit integers read as one word fall there three
//   times in four. It is replayed as its recorded bytes and named in a warning,
//   never silently.
//
// Every allocation that a relocated word reaches is captured as a memory
// region from the lowest address any argument uses in it to its end, like a
// top-level pointer's reach; a top-level pointer into it is re-based onto it,
// so the replay keeps the aliasing the program had.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tilescope {

/// A device allocation as the driver reports it.
struct DeviceAllocation {
  std::uint64_t base = 0, size = 0;
  bool contains(std::uint64_t p) const { return p >= base && p - base < size; }
};

/// The live allocation holding `address`, or nullopt (not device memory).
using AllocationLookup = std::function<std::optional<DeviceAllocation>(std::uint64_t address)>;

/// A by-value parameter's bytes, as passed to the launch.
struct ByteParam {
  std::string name;  ///< p<i>
  std::vector<std::uint8_t> bytes;
};

/// A top-level pointer parameter already resolved to its allocation.
struct PointerParam {
  std::string name;
  std::uint64_t ptr = 0;
  DeviceAllocation allocation;
};

enum class PointerWordClass { pointer, unreferenced, ambiguous };
const char* pointerWordClassName(PointerWordClass c);

/// One pointer-looking word of a byte parameter.
struct PointerWord {
  std::string param;
  std::uint32_t offset = 0;  ///< bytes into the parameter, a multiple of 8
  std::uint64_t value = 0;
  DeviceAllocation allocation;
  PointerWordClass cls = PointerWordClass::pointer;
  /// pointer and unreferenced: the memory it is relocated to (a top-level
  /// pointer parameter's name or a region's) and its offset there.
  std::string target;
  std::int64_t delta = 0;
};

/// Memory that relocated words reach and no top-level parameter starts at:
/// captured from `start` to the allocation's end.
struct MemoryRegion {
  std::string name;  ///< m<k>
  std::uint64_t start = 0;
  DeviceAllocation allocation;
  std::uint64_t bytes() const { return allocation.base + allocation.size - start; }
};

/// A top-level pointer parameter that now points into another tensor.
struct RebasedPointer {
  std::string param, target;
  std::int64_t delta = 0;
};

struct PointerPlan {
  std::vector<PointerWord> words;  ///< every candidate, in parameter then offset order
  std::vector<MemoryRegion> regions;
  std::vector<RebasedPointer> rebased;
  /// One line per parameter with unreferenced or ambiguous words, naming them.
  std::vector<std::string> notes;
  bool hasAmbiguous() const;
};

/// Finds the pointers in `params` by the rules above. `lookup` is called once
/// per aligned non-zero word.
PointerPlan planParamPointers(const std::vector<ByteParam>& params, const std::vector<PointerParam>& pointers,
                              const AllocationLookup& lookup);

/// The most bytes before a top-level pointer that a capture saves with it
/// (docs/capture.md, "Where a pointer points").
inline constexpr std::uint64_t kMaxLeadBytes = std::uint64_t(1) << 20;

/// How many bytes before `ptr` a capture saves with it: the most, up to
/// min(ptr - allocation base, cap), that leaves the saved window's start on a
/// 256-byte boundary of the program's address space, so that a replay placing
/// the window 256-byte aligned puts the pointer at the program's address
/// modulo 256 (a `float4` load on `in + 1` stays misaligned). Where no such
/// start exists in the allocation (a base off 256-byte alignment), all the
/// bytes before the pointer up to the cap.
std::uint64_t leadBytesFor(std::uint64_t ptr, std::uint64_t allocationBase,
                           std::uint64_t cap = kMaxLeadBytes);

/// "0x7f3c5e000000": how notes print addresses.
std::string hexAddress(std::uint64_t v);

}  // namespace tilescope
