// Sanitizer findings: locations, folding, demangling, the finding category of each
// kind, JSON and the one-line description (tilescope/logs/sanitizer.h).
#include "tilescope/logs/sanitizer.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>

#include "sanitizer_detail.h"
#include "tilescope/base/format.h"

namespace tilescope {

namespace detail {

namespace {

bool isHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// "file.cu:120" → true with file and line; no spaces in the file name.
bool fileLine(std::string_view s, std::string* file, int* line) {
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= s.size()) return false;
  for (char c : s.substr(colon + 1))
    if (c < '0' || c > '9') return false;
  if (s.substr(0, colon).find(' ') != std::string_view::npos) return false;
  *file = std::string(s.substr(0, colon));
  *line = int(std::min<long long>(parseCount(s.substr(colon + 1)), 1 << 30));
  return true;
}

// "kernel(int *)+0x8b0" → kernel, pc.
void kernelAndPc(std::string_view s, std::string* kernel, std::optional<std::uint64_t>* pc) {
  s = trimmed(s);
  const auto plus = s.rfind("+0x");
  if (plus != std::string_view::npos && plus + 3 < s.size()) {
    bool hex = true;
    for (char c : s.substr(plus + 3)) hex = hex && isHexDigit(c);
    if (hex) {
      *pc = parseHex(s.substr(plus + 1));
      s = s.substr(0, plus);
    }
  }
  *kernel = std::string(trimmed(s));
}

}  // namespace

long long parseCount(std::string_view s) {
  long long v = 0;
  bool any = false;
  for (char c : s) {
    if (c == ',' && any) continue;
    if (c < '0' || c > '9') break;
    any = true;
    if (v < (1LL << 58)) v = v * 10 + (c - '0');
  }
  return v;
}

std::optional<std::uint64_t> parseHex(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s.size() > 18) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s.substr(2)) {
    if (!isHexDigit(c)) return std::nullopt;
    v = v * 16 + std::uint64_t(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

void parseLocation(std::string_view loc, std::string* kernel, std::optional<std::uint64_t>* pc,
                   std::string* file, int* line) {
  loc = trimmed(loc);
  if (loc.size() > 2 && loc[0] == '0' && (loc[1] == 'x' || loc[1] == 'X')) {
    // Legacy: "0x3b0 in kernel(...)" or "0x578 in /path/file.cu:120:Kernel(args)"
    const auto in = loc.find(" in ");
    *pc = parseHex(loc.substr(0, in));
    if (in == std::string_view::npos) return;
    std::string_view rest = trimmed(loc.substr(in + 4));
    // file:line:kernel, the file without spaces, the line all digits
    const auto c1 = rest.find(':');
    if (c1 != std::string_view::npos && rest.substr(0, c1).find(' ') == std::string_view::npos) {
      const auto c2 = rest.find(':', c1 + 1);
      if (c2 != std::string_view::npos && c2 > c1 + 1 &&
          rest.substr(c1 + 1, c2 - c1 - 1).find_first_not_of("0123456789") == std::string_view::npos) {
        *file = std::string(rest.substr(0, c1));
        *line = int(parseCount(rest.substr(c1 + 1)));
        *kernel = std::string(trimmed(rest.substr(c2 + 1)));
        return;
      }
    }
    *kernel = std::string(rest);
    return;
  }
  // "kernel+0x8b0 in file.cu:12": the last " in " followed by file:line
  for (auto in = loc.rfind(" in "); in != std::string_view::npos && in > 0; in = loc.rfind(" in ", in - 1)) {
    std::string f;
    int l = 0;
    if (fileLine(trimmed(loc.substr(in + 4)), &f, &l)) {
      *file = f;
      *line = l;
      loc = loc.substr(0, in);
      break;
    }
  }
  kernelAndPc(loc, kernel, pc);
}

SanitizerFinding finish(Pending p) {
  p.kernelDemangled = demangleKernel(p.kernel);
  for (auto& a : p.accesses) {
    if (a.hazards > 0) p.hazards += a.hazards;
  }
  if (p.kind == "race" || p.kind == "hazard") {
    // The source access names the kernel of the report.
    if (p.kernel.empty() && !p.accesses.empty()) {
      p.kernel = p.accesses.front().kernel;
      p.kernelDemangled = demangleKernel(p.kernel);
      p.pc = p.accesses.front().pc;
      p.file = p.accesses.front().file;
      p.line = p.accesses.front().line;
    }
  }
  return p;
}

void addFolded(SanitizerReport* r, SanitizerFinding f, std::map<std::string, std::size_t>* index) {
  // Memcheck prints one report per thread: fold reports of one access site.
  if (f.kind != "race" && f.kind != "api_error") {
    std::ostringstream key;
    key << f.tool << '|' << f.kind << '|' << f.access << '|' << f.space << '|' << f.size << '|' << f.kernel
        << '|' << (f.pc ? *f.pc : ~0ULL) << '|' << f.file << ':' << f.line << '|' << f.allocRelation << '|'
        << f.hazardType;
    if (auto it = index->find(key.str()); it != index->end()) {
      r->findings[it->second].count += f.count;
      return;
    }
    (*index)[key.str()] = r->findings.size();
  }
  r->findings.push_back(std::move(f));
}

void settleTool(SanitizerReport* r) {
  for (auto& f : r->findings)
    if (f.tool.empty()) f.tool = r->tool.empty() ? "memcheck" : r->tool;
  if (!r->tool.empty()) return;
  for (const char* t : {"racecheck", "synccheck", "initcheck", "memcheck"})
    for (const auto& f : r->findings)
      if (f.tool == t && f.kind != "api_error") {
        r->tool = t;
        return;
      }
  if (!r->findings.empty()) r->tool = r->findings.front().tool;
}

}  // namespace detail

std::string demangleKernel(const std::string& name) {
  // The demangler recurses with the nesting of the name: a hostile 1 MB name must not
  // exhaust the stack; real kernel names are far shorter.
  if (name.rfind("_Z", 0) != 0 || name.size() > 4096) return name;
  // The mangled name ends at the first character that cannot be part of one.
  const auto end = name.find_first_of(" (,");
  const std::string mangled = name.substr(0, end);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

const SanitizerFinding* SanitizerReport::primary() const {
  auto rank = [](const SanitizerFinding& f) {
    if (f.kind == "out_of_bounds" || f.kind == "misaligned" || f.kind == "invalid_access") return 0;
    if (f.severity == "error" && (f.kind == "race" || f.kind == "hazard" || f.kind == "barrier")) return 1;
    if (f.kind == "uninitialized") return 2;
    if (f.kind == "race" || f.kind == "hazard" || f.kind == "barrier") return 3;
    if (f.kind == "api_error" && !classifyFinding(f).category.empty()) return 4;
    return 9;
  };
  const SanitizerFinding* best = nullptr;
  for (const auto& f : findings)
    if (rank(f) < 9 && (!best || rank(f) < rank(*best))) best = &f;
  return best;
}

FindingClass classifyFinding(const SanitizerFinding& f) {
  const std::string space = f.space.empty() ? "" : "_" + f.space;
  if (f.kind == "out_of_bounds" || f.kind == "invalid_access") {
    if (f.access == "write" || f.access == "atomic")
      return {"oob_write", "sanitizer_oob_write" + space, "fault.oob_write"};
    if (f.access == "read") return {"oob_read", "sanitizer_oob_read" + space, "fault.oob_read"};
    return {"illegal_address", "sanitizer_invalid_access" + space, "fault.illegal_address"};
  }
  if (f.kind == "misaligned")
    return {"misaligned_access", "sanitizer_misaligned" + space, "fault.misaligned_access"};
  if (f.kind == "uninitialized")
    return {"uninitialized_read", "sanitizer_uninitialized" + space, "wrong.uninitialized_read"};
  if (f.kind == "race" || f.kind == "hazard")
    return {"race", f.space == "global" ? "global_hazard" : "shared_hazard", "fault.race"};
  if (f.kind == "barrier") return {"race", "divergent_barrier", "fault.hang.divergent_barrier"};
  if (f.kind == "api_error") {
    const std::string& e = f.apiError;
    auto has = [&](const char* a, const char* b) {
      return e.find(a) != std::string::npos || e.find(b) != std::string::npos;
    };
    if (has("ILLEGAL_ADDRESS", "IllegalAddress"))
      return {"illegal_address", "cuda_illegal_address", "fault.illegal_address"};
    if (has("MISALIGNED", "Misaligned"))
      return {"misaligned_access", "cuda_misaligned_address", "fault.misaligned_access"};
    if (has("LAUNCH_FAILED", "LaunchFailure"))
      return {"illegal_address", "cuda_launch_failure", "fault.illegal_address"};
    if (has("OUT_OF_MEMORY", "MemoryAllocation"))
      return {"invalid_launch", "out_of_memory", "launch.out_of_memory"};
    if (has("ASSERT", "Assert")) return {"device_assert", "cuda_device_assert", "fault.device_assert"};
  }
  return {};
}

namespace {

nlohmann::json dim(const std::optional<Index3>& d) {
  return d ? nlohmann::json::array({d->x, d->y, d->z}) : nlohmann::json(nullptr);
}

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

std::string grouped(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

}  // namespace

nlohmann::json toJson(const SanitizerFinding& f) {
  const FindingClass c = classifyFinding(f);
  nlohmann::json j = {{"tool", f.tool},         {"kind", f.kind},      {"severity", f.severity},
                      {"category", c.category}, {"tree_node", c.node}, {"message", f.message},
                      {"count", f.count}};
  auto put = [&](const char* k, const auto& v, bool present) {
    if (present) j[k] = v;
  };
  put("access", f.access, !f.access.empty());
  put("space", f.space, !f.space.empty());
  put("size", f.size, f.size > 0);
  put("kernel", f.kernel, !f.kernel.empty());
  put("kernel_demangled", f.kernelDemangled, !f.kernelDemangled.empty() && f.kernelDemangled != f.kernel);
  put("pc", f.pc ? hex(*f.pc) : "", f.pc.has_value());
  put("file", f.file, !f.file.empty());
  put("line", f.line, f.line > 0);
  put("thread", dim(f.thread), f.thread.has_value());
  put("block", dim(f.block), f.block.has_value());
  put("address", f.address ? hex(*f.address) : "", f.address.has_value());
  if (!f.allocRelation.empty()) {
    nlohmann::json a = {{"relation", f.allocRelation}};
    if (f.allocDistance) a["distance"] = *f.allocDistance;
    if (f.allocBase) a["base"] = hex(*f.allocBase);
    if (f.allocSize) a["size"] = *f.allocSize;
    j["nearest_allocation"] = a;
  }
  if (!f.accesses.empty()) {
    nlohmann::json acc = nlohmann::json::array();
    for (const auto& a : f.accesses) {
      nlohmann::json x = {{"direction", a.direction}, {"kernel", a.kernel}};
      if (a.pc) x["pc"] = hex(*a.pc);
      if (!a.file.empty()) x["file"] = a.file;
      if (a.line > 0) x["line"] = a.line;
      if (a.thread) x["thread"] = dim(a.thread);
      if (a.hazards > 0) x["hazards"] = a.hazards;
      acc.push_back(x);
    }
    j["accesses"] = acc;
  }
  put("hazards", f.hazards, f.hazards > 0);
  put("hazard_type", f.hazardType, !f.hazardType.empty());
  put("api_call", f.apiCall, !f.apiCall.empty());
  put("api_error", f.apiError, !f.apiError.empty());
  put("log_line", f.logLine, f.logLine > 0);
  return j;
}

nlohmann::json toJson(const SanitizerReport& r) {
  nlohmann::json j = {
      {"tool", r.tool}, {"legacy", r.legacy}, {"xml", r.xml}, {"findings", nlohmann::json::array()}};
  for (const auto& f : r.findings) j["findings"].push_back(toJson(f));
  if (r.errorSummary >= 0) j["error_summary"] = r.errorSummary;
  if (r.notPrinted >= 0) j["not_printed"] = r.notPrinted;
  if (r.hazardsDisplayed >= 0)
    j["racecheck_summary"] = {
        {"hazards", r.hazardsDisplayed}, {"errors", r.raceErrors}, {"warnings", r.raceWarnings}};
  if (!r.xmlError.empty()) j["xml_error"] = r.xmlError;
  return j;
}

std::string describe(const SanitizerFinding& f) {
  std::ostringstream o;
  const FindingClass c = classifyFinding(f);
  o << (c.category.empty() ? f.kind : c.category) << ": " << f.message;
  if (!f.kernel.empty()) o << " in " << (f.kernelDemangled.empty() ? f.kernel : f.kernelDemangled);
  if (f.pc) o << "+" << hex(*f.pc);
  if (!f.file.empty()) o << " (" << f.file << ":" << f.line << ")";
  if (f.thread) o << ", thread (" << f.thread->x << "," << f.thread->y << "," << f.thread->z << ")";
  if (f.block) o << " block (" << f.block->x << "," << f.block->y << "," << f.block->z << ")";
  if (f.address) o << ", address " << hex(*f.address);
  if (f.allocRelation == "inside" && f.allocSize)
    o << ", inside an allocation of " << grouped(*f.allocSize) << " bytes";
  else if (!f.allocRelation.empty() && f.allocDistance)
    o << ", " << grouped(*f.allocDistance) << " bytes " << f.allocRelation << " an allocation of "
      << (f.allocSize ? grouped(*f.allocSize) : "?") << " bytes";
  if (f.hazards > 0) o << ", " << f.hazards << " hazards";
  if (f.count > 1) o << " (" << f.count << " reports)";
  return o.str();
}

std::vector<Finding> reportFindings(const SanitizerReport& r) {
  std::vector<Finding> out;
  for (const auto& f : r.findings) {
    const FindingClass c = classifyFinding(f);
    if (c.category.empty()) continue;
    Finding g;
    g.category = c.category;
    g.severity = f.severity == "warning" ? Severity::warning : Severity::error;
    g.message = describe(f);
    g.detail = c.detail;
    g.treeNode = c.node;
    auto index = [](const Index3& d) { return Index{d.x, d.y, d.z}; };
    Location& loc = g.location;
    if (!f.kernel.empty()) loc.kernel = f.kernelDemangled.empty() ? f.kernel : f.kernelDemangled;
    if (f.pc) loc.sassOffset = *f.pc;  // the sanitizer prints the offset in the function
    if (!f.file.empty()) loc.file = f.file;
    if (f.line > 0) loc.line = f.line;
    if (f.thread) loc.thread = index(*f.thread);
    if (f.block) {
      loc.block = index(*f.block);
      loc.cta = loc.block;
    }
    g.evidence = toJson(f);
    g.evidence["source"] = f.tool == "memcheck" && r.legacy ? "cuda-memcheck" : "compute-sanitizer " + f.tool;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace tilescope
