// compute-sanitizer (memcheck, racecheck, initcheck, synccheck; text and --xml) and
// legacy cuda-memcheck reports → structured findings: what went wrong, where (kernel,
// PC offset, file:line, thread, block), at which address, how far from which
// allocation, how many hazards. Pure functions over the report's text; the finding
// category and the troubleshooting-tree node of a finding come from classifyFinding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/finding.h"

namespace tilescope {

/// A thread or block index as the sanitizer prints it.
struct Index3 {
  long long x = 0, y = 0, z = 0;
  bool operator==(const Index3&) const = default;
};

/// One side of a race (racecheck): the access, where it is, and its hazard count.
struct SanitizerAccess {
  std::string direction;            ///< read | write
  std::string kernel;               ///< function as printed
  std::optional<std::uint64_t> pc;  ///< offset in the function
  std::string file;
  int line = 0;
  std::optional<Index3> thread;  ///< hazard reports name the thread
  long long hazards = 0;         ///< "[N hazards]" (0: not printed)
};

struct SanitizerFinding {
  std::string tool;  ///< memcheck | racecheck | initcheck | synccheck (the tool that reports it)
  /// out_of_bounds | misaligned | invalid_access (no reason printed) | uninitialized |
  /// race | hazard | barrier | api_error | leak
  std::string kind;
  std::string severity = "error";  ///< error | warning
  std::string access;              ///< read | write | atomic | "" (unknown, "?")
  std::string space;               ///< global | shared | local | generic | ""
  int size = 0;                    ///< bytes of the access (0: not printed)
  std::string kernel;              ///< as printed (may be mangled or a template instance)
  std::string kernelDemangled;
  std::optional<std::uint64_t> pc;
  std::string file;
  int line = 0;
  std::optional<Index3> thread, block;
  std::optional<std::uint64_t> address;
  /// Nearest allocation (memcheck): after | before | inside | "" with distance and size.
  std::string allocRelation;
  std::optional<std::uint64_t> allocDistance, allocBase, allocSize;
  std::vector<SanitizerAccess> accesses;  ///< racecheck: source first, then the others
  long long hazards = 0;                  ///< racecheck: sum over the accesses
  std::string hazardType;                 ///< racecheck hazard report: RAW | WAR | WAW
  std::string apiCall, apiError;          ///< api_error: cudaMemcpy, cudaErrorIllegalAddress
  std::string message;                    ///< the report's header line, as printed
  std::size_t logLine = 0;                ///< 1-based line of the header in the log (0 for XML)
  int count = 1;                          ///< reports folded into this one (same kind, access, kernel, PC)
};

struct SanitizerReport {
  std::string tool;     ///< the tool named by the banner or implied by the findings
  bool legacy = false;  ///< cuda-memcheck
  bool xml = false;
  std::vector<SanitizerFinding> findings;
  long long errorSummary = -1;  ///< ERROR SUMMARY: N errors (-1: not printed)
  long long notPrinted = -1;    ///< errors compute-sanitizer did not print (print limit)
  long long hazardsDisplayed = -1, raceErrors = -1, raceWarnings = -1;  ///< RACECHECK SUMMARY
  std::string xmlError;  ///< why an XML report could not be read ("" when it could)
  bool empty() const { return findings.empty(); }
  /// The finding that explains the failure: the first memory error, else the first
  /// race/barrier/uninitialised read, else the first API error.
  const SanitizerFinding* primary() const;
};

/// Text output of compute-sanitizer or cuda-memcheck (the `=========` prefix optional).
SanitizerReport parseSanitizerText(std::string_view text);
/// compute-sanitizer --xml output (<ComputeSanitizerOutput>).
SanitizerReport parseSanitizerXml(std::string_view xml);
/// Either, by looking at the text.
SanitizerReport parseSanitizerLog(std::string_view text);
/// True when `text` holds something a sanitizer printed (cheap: a scan for markers).
bool looksLikeSanitizerOutput(std::string_view text);

/// Itanium-demangled `name` when it is mangled (_Z...), else `name`.
std::string demangleKernel(const std::string& name);

/// The finding category, detail and tree node a finding leads to ("" category when none:
/// leaks, API errors without a kernel fault).
struct FindingClass {
  std::string category, detail, node;
};
FindingClass classifyFinding(const SanitizerFinding& f);

/// The findings as report findings (category, message, location, evidence, tree node)
/// so the troubleshooting tree can walk from them.
std::vector<Finding> reportFindings(const SanitizerReport& r);

nlohmann::json toJson(const SanitizerFinding& f);
nlohmann::json toJson(const SanitizerReport& r);
/// One line a person reads: "oob_write: Invalid __global__ write of size 2 bytes in
/// gemm_tiled+0x1e40, thread (32,0,0) block (7,15,0), 15,393 bytes after ..."
std::string describe(const SanitizerFinding& f);

}  // namespace tilescope
