// SASS offset -> source line, from a cubin compiled with line information
// (NVRTC/nvcc -lineinfo). The cubin's `.debug_line` is a DWARF line program
// whose addresses are SASS offsets within each kernel's `.text.<name>` section;
// each sequence starts with DW_LNE_set_address, relocated (`.rela.debug_line`)
// against the function's symbol. Parsed here without nvdisasm, which a GPU
// server may lack (`.nv_debug_line_sass`, the other table, maps SASS to PTX lines).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilescope {

struct LineRow {
  std::string function;
  std::uint64_t offset = 0;  ///< SASS byte offset within the function
  std::string file;
  int line = 0;
};

class LineTable {
 public:
  void add(LineRow row);
  /// The row that covers `offset` of `function` (the last row at or before it),
  /// or nullptr.
  const LineRow* lookup(const std::string& function, std::uint64_t offset) const;
  bool empty() const { return m_rows.empty(); }
  const std::vector<LineRow>& rows() const { return m_rows; }

 private:
  void sort() const;
  mutable std::vector<LineRow> m_rows;
  mutable bool m_sorted = true;
};

/// Reads the line table of an ELF cubin. Returns an empty table (with the
/// reason in *error when given) when the image has no `.debug_line`.
LineTable parseCubinLineTable(const std::vector<char>& image, std::string* error = nullptr);

/// A symbol of a cubin: its functions (kernels and device functions) and its
/// __device__ variables (objects in `.nv.global*` sections).
struct CubinSymbol {
  std::string name;
  bool function = false;
  std::string section;
  std::uint64_t size = 0;
};
/// Defined function and object symbols of an ELF cubin (empty when not ELF).
std::vector<CubinSymbol> cubinSymbols(const std::vector<char>& image);

/// The DWARF (v2-v4) line program of one `.debug_line` section, each sequence
/// attributed to the function whose symbol relocates its start address
/// (`sequenceFunction(byteOffsetOfTheAddressField)`, "" when unknown).
struct DebugLineInput {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  /// A DW_LNE_set_address operand at `offset` in the section is `function` + `addend`.
  struct Relocation {
    std::uint64_t offset = 0;
    std::string function;
    std::int64_t addend = 0;
  };
  std::vector<Relocation> relocations;
};
std::vector<LineRow> decodeDebugLine(const DebugLineInput& in, std::string* error = nullptr);

}  // namespace tilescope
