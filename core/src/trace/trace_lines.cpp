// The line table of a cubin: a small ELF64 reader (sections, symbols, RELA) and
// a DWARF v2-v4 line-program decoder (see trace_lines.h).
#include "tilescope/trace/trace_lines.h"

#include <algorithm>
#include <cstring>

namespace tilescope {

void LineTable::add(LineRow row) {
  if (!m_rows.empty()) {
    const LineRow& b = m_rows.back();
    if (b.function > row.function || (b.function == row.function && b.offset > row.offset)) m_sorted = false;
  }
  m_rows.push_back(std::move(row));
}

void LineTable::sort() const {
  if (m_sorted) return;
  std::stable_sort(m_rows.begin(), m_rows.end(), [](const LineRow& a, const LineRow& b) {
    return a.function != b.function ? a.function < b.function : a.offset < b.offset;
  });
  m_sorted = true;
}

const LineRow* LineTable::lookup(const std::string& function, std::uint64_t offset) const {
  sort();
  // The last row of `function` at or before `offset`; several rows at one offset: the last one wins.
  auto it = std::upper_bound(m_rows.begin(), m_rows.end(), offset, [&](std::uint64_t off, const LineRow& r) {
    return function != r.function ? function < r.function : off < r.offset;
  });
  if (it == m_rows.begin()) return nullptr;
  --it;
  if (it->function != function || it->line <= 0) return nullptr;
  return &*it;
}

namespace {

struct Reader {
  const std::uint8_t* p;
  const std::uint8_t* end;
  bool ok = true;
  bool has(std::size_t n) const { return std::size_t(end - p) >= n; }
  template <class T>
  T fixed() {
    T v{};
    if (!has(sizeof(T))) {
      ok = false;
      p = end;
      return v;
    }
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  std::uint64_t uleb() {
    std::uint64_t v = 0;
    for (int shift = 0; p < end && shift < 64; shift += 7) {
      std::uint8_t b = *p++;
      v |= std::uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return v;
  }
  std::int64_t sleb() {
    std::int64_t v = 0;
    int shift = 0;
    std::uint8_t b = 0;
    do {
      if (p >= end) {
        ok = false;
        return v;
      }
      b = *p++;
      v |= std::int64_t(b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) && shift < 64);
    if (shift < 64 && (b & 0x40)) v |= -(std::int64_t(1) << shift);
    return v;
  }
  std::string cstr() {
    std::string s;
    while (p < end && *p) s.push_back(char(*p++));
    if (p < end)
      ++p;
    else
      ok = false;
    return s;
  }
};

std::string joinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || (!name.empty() && name[0] == '/')) return name;
  return dir + "/" + name;
}

/// A line-program unit's header: the program's parameters and its file table.
struct LineUnit {
  int minInst = 1, lineBase = 0, lineRange = 1, opcodeBase = 1;
  std::vector<int> opLengths;  ///< operands of each standard opcode
  std::vector<std::string> files{""};
  const std::uint8_t* program = nullptr;
  const std::uint8_t* end = nullptr;
};

/// Reads a unit's header from `r` (at the unit's start); "" or what is wrong.
std::string readUnitHeader(Reader& r, LineUnit* u) {
  std::uint64_t unitLength = r.fixed<std::uint32_t>();
  const bool dwarf64 = unitLength == 0xffffffffu;
  if (dwarf64) unitLength = r.fixed<std::uint64_t>();
  if (!r.ok || !r.has(unitLength)) return "truncated .debug_line unit";
  u->end = r.p + unitLength;
  const std::uint16_t version = r.fixed<std::uint16_t>();
  if (version < 2 || version > 4) return "unsupported .debug_line version " + std::to_string(version);
  const std::uint64_t headerLength = dwarf64 ? r.fixed<std::uint64_t>() : r.fixed<std::uint32_t>();
  u->program = r.p + headerLength;
  u->minInst = r.fixed<std::uint8_t>();
  if (version >= 4) (void)r.fixed<std::uint8_t>();  // maximum_operations_per_instruction
  (void)r.fixed<std::uint8_t>();                    // default_is_stmt
  u->lineBase = r.fixed<std::int8_t>();
  u->lineRange = r.fixed<std::uint8_t>();
  u->opcodeBase = r.fixed<std::uint8_t>();
  if (!r.ok || u->lineRange == 0 || u->opcodeBase == 0 || u->program > u->end)
    return "malformed .debug_line header";
  u->opLengths.assign(std::size_t(u->opcodeBase), 0);
  for (int i = 1; i < u->opcodeBase; ++i) u->opLengths[std::size_t(i)] = r.fixed<std::uint8_t>();
  std::vector<std::string> dirs{""};
  for (std::string d; !(d = r.cstr()).empty() && r.ok;) dirs.push_back(d);
  while (r.ok && r.p < u->program && *r.p) {
    std::string name = r.cstr();
    std::uint64_t dir = r.uleb();
    r.uleb(), r.uleb();  // mtime, length
    u->files.push_back(joinPath(dir < dirs.size() ? dirs[dir] : "", name));
  }
  return r.ok ? "" : "malformed .debug_line file table";
}

/// The line program's registers (DWARF 4, 6.2.2); emit() appends a row.
struct LineState {
  LineState(const LineUnit& u, std::vector<LineRow>& r) : unit(u), rows(r) {}
  const LineUnit& unit;
  std::vector<LineRow>& rows;
  std::uint64_t address = 0;
  std::uint64_t file = 1;
  std::int64_t line = 1;
  std::string function;
  void emit() {
    LineRow row;
    row.function = function;
    row.offset = address;
    row.file = file < unit.files.size() ? unit.files[file] : "";
    row.line = int(line);
    rows.push_back(std::move(row));
  }
};

/// An extended opcode (0, length, sub-opcode): end_sequence and set_address,
/// relocated against the function's symbol, matter; the rest is skipped.
void extendedOp(const DebugLineInput& in, Reader& pr, LineState& st) {
  const std::uint64_t len = pr.uleb();
  if (len == 0 || !pr.has(len)) {
    pr.ok = false;
    return;
  }
  const std::uint8_t* next = pr.p + len;
  const std::uint8_t sub = pr.fixed<std::uint8_t>();
  if (sub == 1) {  // end_sequence
    st.emit();
    st.rows.back().line = 0;  // marks the end: nothing maps past it
    st.address = 0, st.file = 1, st.line = 1, st.function.clear();
  } else if (sub == 2) {  // set_address
    const std::uint64_t at = std::uint64_t(pr.p - in.data);
    std::uint64_t value = 0;
    std::memcpy(&value, pr.p, std::min<std::size_t>(len - 1, sizeof value));
    st.address = value;
    for (const auto& rel : in.relocations)
      if (rel.offset == at) st.function = rel.function, st.address = std::uint64_t(rel.addend);
  }
  pr.p = next;
}

/// A standard opcode (1 to opcode_base - 1).
void standardOp(std::uint8_t op, Reader& pr, LineState& st) {
  const LineUnit& u = st.unit;
  switch (op) {
    case 1:
      st.emit();
      break;
    case 2:
      st.address += pr.uleb() * std::uint64_t(u.minInst);
      break;
    case 3:
      st.line += pr.sleb();
      break;
    case 4:
      st.file = pr.uleb();
      break;
    case 5:
      pr.uleb();
      break;
    case 6:
    case 7:
    case 10:
    case 11:
      break;
    case 8:
      st.address += std::uint64_t((255 - u.opcodeBase) / u.lineRange) * std::uint64_t(u.minInst);
      break;
    case 9:
      st.address += pr.fixed<std::uint16_t>();
      break;
    default:
      for (int i = 0; i < u.opLengths[op]; ++i) pr.uleb();
  }
}

/// Runs a unit's line program; false when it is malformed.
bool runProgram(const DebugLineInput& in, const LineUnit& u, std::vector<LineRow>& rows) {
  Reader pr{u.program, u.end};
  LineState st{u, rows};
  while (pr.p < pr.end && pr.ok) {
    const std::uint8_t op = pr.fixed<std::uint8_t>();
    if (op >= u.opcodeBase) {  // a special opcode: advance address and line, emit
      const int adj = op - u.opcodeBase;
      st.address += std::uint64_t(adj / u.lineRange) * std::uint64_t(u.minInst);
      st.line += u.lineBase + adj % u.lineRange;
      st.emit();
    } else if (op == 0) {
      extendedOp(in, pr, st);
    } else {
      standardOp(op, pr, st);
    }
  }
  return pr.ok;
}

}  // namespace

std::vector<LineRow> decodeDebugLine(const DebugLineInput& in, std::string* error) {
  std::vector<LineRow> rows;
  Reader r{in.data, in.data + in.size};
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return rows;
  };
  while (r.p < r.end) {
    LineUnit unit;
    if (std::string why = readUnitHeader(r, &unit); !why.empty()) return fail(why);
    if (!runProgram(in, unit, rows)) return fail("malformed .debug_line program");
    r.p = unit.end;
  }
  return rows;
}

namespace {

struct ElfSection {
  std::string name;
  std::uint32_t type = 0, link = 0, info = 0;
  std::uint64_t offset = 0, size = 0, entsize = 0;
};

template <class T>
T at(const std::vector<char>& d, std::uint64_t off) {
  T v{};
  if (off + sizeof(T) <= d.size()) std::memcpy(&v, d.data() + off, sizeof(T));
  return v;
}

std::string cstrAt(const std::vector<char>& d, std::uint64_t off) {
  std::string s;
  while (off < d.size() && d[off]) s.push_back(d[off++]);
  return s;
}

struct Elf {
  std::vector<ElfSection> sec;
  int symtab = -1;
  std::string error;
};

Elf readElf(const std::vector<char>& d) {
  Elf e;
  if (d.size() < 64 ||
      std::memcmp(d.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      d[4] != 2) {
    e.error = "not an ELF64 cubin";
    return e;
  }
  const auto shoff = at<std::uint64_t>(d, 0x28);
  const auto shentsize = at<std::uint16_t>(d, 0x3a), shnum = at<std::uint16_t>(d, 0x3c),
             shstrndx = at<std::uint16_t>(d, 0x3e);
  if (shentsize < 64 || shoff + std::uint64_t(shnum) * shentsize > d.size() || shstrndx >= shnum) {
    e.error = "truncated ELF section table";
    return e;
  }
  e.sec.resize(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t o = shoff + std::uint64_t(i) * shentsize;
    ElfSection& s = e.sec[i];
    s.type = at<std::uint32_t>(d, o + 4);
    s.offset = at<std::uint64_t>(d, o + 24);
    s.size = at<std::uint64_t>(d, o + 32);
    s.link = at<std::uint32_t>(d, o + 40);
    s.info = at<std::uint32_t>(d, o + 44);
    s.entsize = at<std::uint64_t>(d, o + 56);
    if (s.type != 8 && s.offset + s.size > d.size()) {
      e.error = "ELF section past the image's end";
      e.sec.clear();
      return e;
    }
  }
  for (std::uint16_t i = 0; i < shnum; ++i) {
    e.sec[i].name =
        cstrAt(d, e.sec[shstrndx].offset + at<std::uint32_t>(d, shoff + std::uint64_t(i) * shentsize));
    if (e.sec[i].type == 2) e.symtab = i;  // SHT_SYMTAB
  }
  return e;
}

struct ElfSymbol {
  std::string name;
  std::uint8_t type = 0;
  std::uint16_t shndx = 0;
  std::uint64_t size = 0;
};

std::vector<ElfSymbol> readSymbols(const std::vector<char>& d, const Elf& e) {
  std::vector<ElfSymbol> out;
  if (e.symtab < 0 || e.sec[std::size_t(e.symtab)].link >= e.sec.size()) return out;
  const ElfSection& st = e.sec[std::size_t(e.symtab)];
  const ElfSection& strs = e.sec[st.link];
  for (std::uint64_t o = st.offset; o + 24 <= st.offset + st.size; o += 24) {
    ElfSymbol s;
    s.name = cstrAt(d, strs.offset + at<std::uint32_t>(d, o));
    s.type = at<std::uint8_t>(d, o + 4) & 0xf;
    s.shndx = at<std::uint16_t>(d, o + 6);
    s.size = at<std::uint64_t>(d, o + 16);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::vector<CubinSymbol> cubinSymbols(const std::vector<char>& d) {
  std::vector<CubinSymbol> out;
  Elf e = readElf(d);
  for (const ElfSymbol& s : readSymbols(d, e)) {
    if (s.shndx == 0 || s.shndx >= e.sec.size() || s.name.empty()) continue;
    const std::string& sec = e.sec[s.shndx].name;
    if (s.type == 2)
      out.push_back({s.name, true, sec, s.size});  // STT_FUNC
    else if (s.type == 1 && sec.rfind(".nv.global", 0) == 0)
      out.push_back({s.name, false, sec, s.size});
  }
  return out;
}

LineTable parseCubinLineTable(const std::vector<char>& d, std::string* error) {
  LineTable table;
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return table;
  };
  Elf e = readElf(d);
  if (!e.error.empty()) return fail(e.error);
  const auto& sec = e.sec;
  int lineSec = -1;
  for (std::size_t i = 0; i < sec.size(); ++i)
    if (sec[i].name == ".debug_line") lineSec = int(i);
  if (lineSec < 0) return fail("the cubin has no .debug_line (compile with -lineinfo)");
  // Relocation targets: a section symbol of `.text.<fn>` stands for the function.
  std::vector<std::string> symName;
  for (const ElfSymbol& s : readSymbols(d, e)) {
    if (s.type == 3 && s.shndx < sec.size() && sec[s.shndx].name.rfind(".text.", 0) == 0)
      symName.push_back(sec[s.shndx].name.substr(6));
    else
      symName.push_back(s.name);
  }
  DebugLineInput in;
  in.data = reinterpret_cast<const std::uint8_t*>(d.data() + sec[std::size_t(lineSec)].offset);
  in.size = sec[std::size_t(lineSec)].size;
  for (const ElfSection& rs : sec) {
    if (rs.type != 4 || int(rs.info) != lineSec) continue;  // SHT_RELA applying to .debug_line
    for (std::uint64_t o = rs.offset; o + 24 <= rs.offset + rs.size; o += 24) {
      const auto off = at<std::uint64_t>(d, o);
      const auto sym = std::uint32_t(at<std::uint64_t>(d, o + 8) >> 32);
      if (sym < symName.size()) in.relocations.push_back({off, symName[sym], at<std::int64_t>(d, o + 16)});
    }
  }
  std::string err;
  for (LineRow& row : decodeDebugLine(in, &err)) table.add(std::move(row));
  if (!err.empty() && error) *error = err;
  return table;
}

}  // namespace tilescope
