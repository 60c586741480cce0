// tilescope.launch/1 and tilescope.capture/1 on the field lists (json_fields.h).
#include "tilescope/capture/launch_record.h"

#include <fstream>
#include <stdexcept>

#include "tilescope/base/json_input.h"
#include "tilescope/capture/capture.h"
#include "tilescope/config/config.h"
#include "tilescope/model/json_fields.h"

namespace tilescope {

using json_io::Is;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

template <class IO, Is<LaunchWord> S>
void fields(IO& io, S& w) {
  io("offset", w.offset);
  io("value", w.value);
  io("class", w.cls);
  io("target", w.target, skipIfEmpty(w.target));
  io("delta", w.delta, skipIf(w.delta == 0));
}

template <class IO, Is<LaunchArg> S>
void fields(IO& io, S& a) {
  io("name", a.name);
  io("kind", a.kind);
  io("dtype", a.dtype, skipIfEmpty(a.dtype));
  io("torch_dtype", a.torchDtype, skipIfEmpty(a.torchDtype));
  io("shape", a.shape, skipIfEmpty(a.shape));
  io("strides", a.strides, skipIfEmpty(a.strides));
  io("storage_offset", a.storageOffset, skipIf(a.storageOffset == 0));
  io("data_ptr", a.dataPtr, skipIf(a.dataPtr == 0));
  io("allocation_base", a.allocationBase, skipIf(a.allocationBase == 0));
  io("allocation_size", a.allocationSize, skipIf(a.allocationSize == 0));
  io("lead_bytes", a.leadBytes, skipIf(a.leadBytes == 0));
  io("before", a.before, skipIfEmpty(a.before));
  io("after", a.after, skipIfEmpty(a.after));
  io("changed", a.changed, skipIf(!a.changed));
  io("stored", a.stored, skipIf(!a.stored));
  io("const", a.isConst, skipIf(!a.isConst));
  io("unsupported", a.unsupported, skipIfEmpty(a.unsupported));
  io("type", a.type, skipIfEmpty(a.type));
  io("value", a.value, skipIf(a.value.is_null()));
  io("index", a.index, skipIf(a.index < 0));
  io("offset", a.offset, skipIf(a.size == 0));
  io("size", a.size, skipIf(a.size == 0));
  io("reason", a.reason, skipIfEmpty(a.reason));
  io("words", a.words, skipIfEmpty(a.words));
  io("rebased_onto", a.rebasedOnto, skipIfEmpty(a.rebasedOnto));
  io("rebase_delta", a.rebaseDelta, skipIf(a.rebaseDelta == 0));
}

template <class IO, Is<LaunchSource> S>
void fields(IO& io, S& s) {
  io("file", s.file, skipIfEmpty(s.file));
  io("function", s.function, skipIfEmpty(s.function));
  io("def_line", s.defLine, skipIf(s.defLine == 0));
  io("copy", s.copy, skipIfEmpty(s.copy));
}

template <class IO, Is<TritonLaunch> S>
void fields(IO& io, S& t) {
  io("version", t.version, skipIfEmpty(t.version));
  io(kNumWarps, t.numWarps);
  io(kNumStages, t.numStages);
  io(kNumCtas, t.numCtas);
  io("constexprs", t.constexprs);
  io("signature", t.signature);
  io("specialized", t.specialized, skipIf(t.specialized.empty()));
  io("global_scratch_size", t.globalScratchSize, skipIf(t.globalScratchSize == 0));
  io("profile_scratch_size", t.profileScratchSize, skipIf(t.profileScratchSize == 0));
  io("autotuned", t.autotuned, skipIf(!t.autotuned));
  io("config", t.config, skipIf(t.config.is_null()));
}

template <class IO, Is<SkippedArg> S>
void fields(IO& io, S& s) {
  io("arg", s.arg);
  io("reason", s.reason);
}

template <class IO, Is<LaunchRecord> S>
void fields(IO& io, S& r) {
  if constexpr (!IO::reading) io("schema", std::string(kLaunchSchema));
  io("recorder", r.recorder);
  io("language", r.language);
  io("id", r.id);
  io("pid", r.pid);
  io("seq", r.seq);
  io("index", r.index, skipIf(r.index < 0));
  io("time_unix_ns", r.timeUnixNs, skipIf(r.timeUnixNs == 0));
  io("kernel", r.kernel);
  io("symbol", r.symbol, skipIfEmpty(r.symbol));
  io("source", r.source, skipIf(r.source.file.empty() && r.source.function.empty() && r.source.copy.empty()));
  io("grid", r.grid);
  io("block", r.block);
  io("cluster", r.cluster);
  io("shared_bytes", r.sharedBytes);
  io("triton", r.triton);
  io("cubin", r.cubin, skipIfEmpty(r.cubin));
  io("image", r.image, skipIfEmpty(r.image));
  io("args", r.args);
  io("memory", r.memory, skipIfEmpty(r.memory));
  io("aliases", r.aliases, skipIfEmpty(r.aliases));
  io("kernel_ns", r.kernelNs);
  io("fault", r.fault, skipIfEmpty(r.fault));
  io("notes", r.notes, skipIfEmpty(r.notes));
  io("skipped", r.skipped, skipIfEmpty(r.skipped));
}

template <class IO, Is<ProgramExit> S>
void fields(IO& io, S& e) {
  io("status", e.status);
  io("code", e.code);
  io("message", e.message, skipIfEmpty(e.message));
  io("seconds", e.seconds);
}

template <class IO, Is<CapturedLaunch> S>
void fields(IO& io, S& l) {
  io("id", l.id);
  io("index", l.index, skipIf(l.index < 0));
  io("recorder", l.recorder);
  io("language", l.language);
  io("kernel", l.kernel);
  io("grid", l.grid);
  io("block", l.block);
  io("kernel_ns", l.kernelNs);
  io("config", l.config, skipIfEmpty(l.config));
  io("reason", l.reason, skipIfEmpty(l.reason));
  io("fault", l.fault, skipIfEmpty(l.fault));
  io("notes", l.notes, skipIfEmpty(l.notes));
}

template <class IO, Is<CaptureInfo> S>
void fields(IO& io, S& c) {
  if constexpr (!IO::reading) io("schema", std::string(kCaptureSchema));
  io("command", c.command);
  io("cwd", c.cwd);
  io("host", c.host);
  io("started_at", c.startedAt);
  io("remote", c.remote, skipIfEmpty(c.remote));
  io("exit", c.exit);
  io("environment", c.environment);
  io("selection", c.selection);
  io("launches", c.launches);
  io("notes", c.notes, skipIfEmpty(c.notes));
}

namespace {

/// Reads `file` with the input limits of configs, checks its schema.
json readSchemaFile(const std::filesystem::path& file, const char* schema, std::size_t maxBytes) {
  JsonLimits limits;
  limits.maxBytes = maxBytes;
  limits.maxMembers = 1 << 20;
  json j;
  try {
    j = parseJson(readInputFile(file, maxBytes), limits);
  } catch (const JsonInputError& e) {
    throw std::runtime_error(file.string() + (e.where.empty() ? "" : ": " + e.where) + ": " + e.problem);
  }
  if (!j.is_object() || j.value("schema", std::string()) != schema)
    throw std::runtime_error(file.string() + ": not a " + schema + " file (schema: " +
                             (j.is_object() && j.contains("schema") ? j["schema"].dump() : "missing") + ")");
  return j;
}

}  // namespace

LaunchRecord launchRecordFromJson(const json& j, const std::string& path) {
  LaunchRecord r;
  json_io::readObject(j, r, path);
  return r;
}

json toJson(const LaunchRecord& r) { return json_io::toValue(r); }

LaunchRecord loadLaunchRecord(const std::filesystem::path& file) {
  const json j = readSchemaFile(file, kLaunchSchema, std::size_t{64} << 20);
  try {
    return launchRecordFromJson(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

json toJson(const CaptureInfo& c) { return json_io::toValue(c); }

CaptureInfo captureInfoFromJson(const json& j) {
  if (!j.is_object() || j.value("schema", std::string()) != kCaptureSchema)
    throw std::runtime_error(std::string("not a ") + kCaptureSchema + " object");
  CaptureInfo c;
  json_io::readObject(j, c, "");
  return c;
}

CaptureInfo loadCaptureInfo(const std::filesystem::path& dirOrFile) {
  const std::filesystem::path file =
      std::filesystem::is_directory(dirOrFile) ? dirOrFile / "capture.json" : dirOrFile;
  const json j = readSchemaFile(file, kCaptureSchema, std::size_t{256} << 20);
  try {
    CaptureInfo info = captureInfoFromJson(j);
    confineCaptureInfo(file.has_parent_path() ? file.parent_path() : std::filesystem::path("."), info);
    return info;
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace tilescope
