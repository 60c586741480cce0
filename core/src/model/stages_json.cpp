// The report's `stages` section <-> JSON (docs/report.md, "Compiler stages"):
// one field list per struct drives both directions (json_fields.h).
#include <algorithm>

#include "tilescope/model/json_fields.h"
#include "tilescope/model/stages_info.h"

namespace tilescope {

using json_io::Is;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

/// [first, last, file, line].
template <Is<StageSpan> S>
auto tupleOf(S& s) {
  return std::tie(s.first, s.last, s.file, s.line);
}

/// [bytes, count].
template <Is<WidthCount> S>
auto tupleOf(S& w) {
  return std::tie(w.bytes, w.count);
}

template <class IO, Is<CompilerStage> S>
void fields(IO& io, S& s) {
  io("name", s.name);
  io("present", s.present);
  io("absent", s.absent, skipIfEmpty(s.absent));
  io("bytes", s.bytes, skipIf(!s.present));
  io("lines", s.lines, skipIf(!s.present));
  io("clipped", s.clipped, skipIf(!s.clipped));
  io("text", s.text, skipIf(!s.present));
  io("spans", s.spans, skipIf(!s.present));
}

template <class IO, Is<StageLineSummary> S>
void fields(IO& io, S& l) {
  io("file", l.file);
  io("line", l.line);
  io("sass", l.sass);
  io("ptx", l.ptx, skipIf(l.ptx == 0));
  io("global_loads", l.globalLoads, skipIfEmpty(l.globalLoads));
  io("global_stores", l.globalStores, skipIfEmpty(l.globalStores));
  io("shared_loads", l.sharedLoads, skipIfEmpty(l.sharedLoads));
  io("shared_stores", l.sharedStores, skipIfEmpty(l.sharedStores));
  io("local_loads", l.localLoads, skipIf(l.localLoads == 0));
  io("local_stores", l.localStores, skipIf(l.localStores == 0));
  io("tensor", l.tensor, skipIf(l.tensor == 0));
  io("tensor_ops", l.tensorOps, skipIfEmpty(l.tensorOps));
  io("instructions", l.instructions, skipIfEmpty(l.instructions));
}

template <class IO, Is<StagesInfo> S>
void fields(IO& io, S& s) {
  if constexpr (IO::reading) s.collected = true;  // the section is written only when collected
  io("note", s.note, skipIfEmpty(s.note));
  io("compiler", s.compiler, skipIfEmpty(s.compiler));
  io("arch", s.arch, skipIfEmpty(s.arch));
  io("disassembler", s.disassembler, skipIfEmpty(s.disassembler));
  io("max_stage_bytes", s.maxStageBytes);
  io("stages", s.stages);
  io("lines", s.lines);
}

namespace json_io {
json toValue(const StagesInfo& v) {
  json j = json::object();
  Writer w(j);
  fields(w, v);
  return j;
}
template <Value V>
void fromValue(const V& j, StagesInfo& out, const JsonPath& path) {
  readObject(j, out, path);
}
template void fromValue(const json&, StagesInfo&, const JsonPath&);
template void fromValue(const JsonView&, StagesInfo&, const JsonPath&);
}  // namespace json_io

json toJson(const StagesInfo& s) { return json_io::toValue(s); }

StagesInfo stagesInfoFromJson(const json& j, const std::string& path) {
  StagesInfo s;
  json_io::fromValue(j, s, path);
  return s;
}

namespace {
std::string baseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

const StageLineSummary* StagesInfo::find(const std::string& file, int line) const {
  if (line <= 0) return nullptr;
  const std::string name = baseName(file);
  for (const auto& l : lines)
    if (l.line == line && (name.empty() || baseName(l.file) == name)) return &l;
  return nullptr;
}

const CompilerStage* StagesInfo::stage(const std::string& name) const {
  const auto it = std::find_if(stages.begin(), stages.end(), [&](const auto& s) { return s.name == name; });
  return it == stages.end() ? nullptr : &*it;
}

}  // namespace tilescope
