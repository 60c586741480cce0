// One recorded launch -> one tilescope.config/1 (docs/capture.md, "The
// configs"). Inputs start from the program's own bytes before the launch; each
// output the launch changed carries the program's result as `expected`,
// compared exactly, so running the config proves the replay faithful or says
// where it is not.
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "tilescope/base/format.h"
#include "tilescope/base/hash.h"
#include "tilescope/capture/capture.h"
#include "tilescope/capture/kernel_signature.h"
#include "tilescope/config/config_document.h"

namespace tilescope {

using ojson = nlohmann::ordered_json;

namespace {

std::string printed(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// "npy:launches/<id>/<file>": the config sits at the capture folder's top.
std::string npyRef(const LaunchRecord& r, const std::string& file) {
  return "npy:launches/" + r.id + "/" + file;
}

/// Triton writes a tl.dtype constexpr as its short name (fp16); the config
/// names it as the loader reads it ("tl.float16").
ojson constexprJson(const nlohmann::json& v) {
  static const std::map<std::string, std::string> names = {
      {"fp16", "float16"}, {"bf16", "bfloat16"},      {"fp32", "float32"},  {"fp64", "float64"},
      {"i8", "int8"},      {"i16", "int16"},          {"i32", "int32"},     {"i64", "int64"},
      {"u8", "uint8"},     {"u16", "uint16"},         {"u32", "uint32"},    {"u64", "uint64"},
      {"i1", "int1"},      {"fp8e4nv", "float8e4nv"}, {"fp8e5", "float8e5"}};
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (auto it = names.find(s); it != names.end()) return "tl." + it->second;
  }
  return ojson::parse(v.dump());
}

/// A constexpr as the config holds it: an integer, a boolean, a string, or any
/// other value kept as written (a non-integer number; the loader refuses the
/// rest).
DefineValue constexprValue(const nlohmann::json& recorded) {
  return DefineValue::fromJson(constexprJson(recorded));
}

/// Sets `name` in a list kept in file order (the first setting keeps its
/// place).
template <class T>
void upsert(std::vector<std::pair<std::string, T>>& list, const std::string& name, T value) {
  for (auto& [n, v] : list)
    if (n == name) {
      v = std::move(value);
      return;
    }
  list.emplace_back(name, std::move(value));
}

std::vector<std::string> dims(const std::vector<std::int64_t>& v) {
  std::vector<std::string> out;
  for (std::int64_t x : v) out.push_back(std::to_string(x));
  return out;
}
std::vector<std::string> dims(const std::array<std::uint32_t, 3>& v) {
  return {std::to_string(v[0]), std::to_string(v[1]), std::to_string(v[2])};
}

ArgSpec tensorArg(const std::string& name) {
  ArgSpec a;
  a.text = a.tensor = name;
  a.isTensor = true;
  return a;
}
ArgSpec scalarArg(const std::string& text) {
  ArgSpec a;
  a.text = a.expr = text;
  return a;
}

bool contiguous(const LaunchArg& a) {
  if (a.strides.empty()) return true;
  std::int64_t expect = 1;
  for (std::size_t d = a.shape.size(); d-- > 0;) {
    if (a.shape[d] != 1 && a.strides[d] != expect) return false;
    expect *= a.shape[d];
  }
  return true;
}

/// The tensor of a tensor or pointer argument; "" in *why when its bytes can be
/// replayed.
TensorSpec tensorEntry(const LaunchRecord& r, const LaunchArg& a, std::string* why) {
  if (!a.unsupported.empty()) {
    *why = "argument " + a.name + ": " + a.unsupported;
    return {};
  }
  if (a.before.empty()) {
    std::string reason = "its bytes were not saved";
    for (const SkippedArg& s : r.skipped)
      if (s.arg == a.name) reason = s.reason;
    *why = "argument " + a.name + ": " + reason;
    return {};
  }
  TensorSpec t;
  t.name = a.name;
  const std::string dtype = a.dtype.empty() ? "u8" : a.dtype;
  const auto parsed = parseDType(dtype);
  if (!parsed) {
    *why = "argument " + a.name + ": unsupported dtype '" + dtype + "'";
    return {};
  }
  t.dtype = *parsed;
  t.shape = dims(a.shape);
  if (!contiguous(a)) t.strides = dims(a.strides);
  t.init = npyRef(r, a.before);
  t.seed = fnv1a(a.name);  // the loader's default: left out of the document
  // An output: bytes the launch changed, or a buffer the kernel stores through
  // (rewritten with what it held: a buffer reused at the same address).
  if (a.changed || a.stored) {
    t.output = true;
    t.expected = npyRef(r, a.after.empty() ? a.before : a.after);
  }
  return t;
}

/// Adds (or replaces, in its place) a tensor of the config.
void putTensor(Config& c, TensorSpec t) {
  for (TensorSpec& x : c.tensors)
    if (x.name == t.name) {
      x = std::move(t);
      return;
    }
  c.tensors.push_back(std::move(t));
}

/// An 8-byte value as its little-endian bytes.
std::vector<std::uint8_t> littleEndian(std::uint64_t v) {
  std::vector<std::uint8_t> out(8);
  for (int b = 0; b < 8; ++b) out[b] = std::uint8_t((v >> (8 * b)) & 0xff);
  return out;
}

/// Where the replay's tensors are: which tensor each argument or memory
/// region became, and how many bytes before the program's pointer each
/// tensor's window starts (LaunchArg::leadBytes).
struct Placement {
  std::map<std::string, std::string> tensorOf;
  std::map<std::string, std::uint64_t> leadOf;
};

/// A `bytes` argument (docs/config.md): a struct parameter's recorded bytes
/// with its pointers relocated, or a top-level pointer into a tensor rather
/// than at its first byte (re-based onto the tensor of its allocation, or past
/// the bytes saved before it): 8 bytes, one relocation.
ArgSpec bytesArg(const LaunchRecord& r, const LaunchArg& a, const Placement& place, std::string* why) {
  ArgSpec b;
  b.isBytes = true;
  auto relocate = [&](std::uint32_t offset, const std::string& target, std::int64_t delta) {
    auto it = place.tensorOf.find(target);
    if (it == place.tensorOf.end()) {
      *why = "argument " + a.name + ": its pointer at +" + std::to_string(offset) + " points into " + target +
             ", which has no tensor";
      return;
    }
    auto lead = place.leadOf.find(it->second);
    if (lead != place.leadOf.end()) delta += std::int64_t(lead->second);
    b.relocations.push_back({offset, it->second, delta});
  };
  if (a.kind == "pointer") {
    b.size = 8;
    b.bytes = littleEndian(a.dataPtr);
    if (a.rebasedOnto.empty())
      relocate(0, a.name, 0);
    else
      relocate(0, a.rebasedOnto, a.rebaseDelta);
  } else {
    if (a.before.empty()) {
      *why = "argument " + a.name + ": its bytes were not saved";
      return {};
    }
    b.size = std::uint32_t(a.size);
    b.file = "launches/" + r.id + "/" + a.before;
    for (const LaunchWord& w : a.words) {
      if (w.cls == "ambiguous")
        b.ambiguous.push_back(w.offset);
      else
        relocate(w.offset, w.target, w.delta);
    }
  }
  if (!why->empty()) return {};
  b.text = "bytes(" + std::to_string(b.size) + ")";
  return b;
}

/// A CUDA scalar from its raw little-endian bits (`value`), typed by the
/// demangled signature where there is one: "0.5:f32", "-3", "4096:u64".
std::string cudaScalar(const LaunchArg& a) {
  const std::uint64_t bits = a.value.is_number_unsigned()  ? a.value.get<std::uint64_t>()
                             : a.value.is_number_integer() ? std::uint64_t(a.value.get<std::int64_t>())
                                                           : 0;
  const std::string& t = a.type;
  if (a.size == 4 && t == "float") {
    const float f = std::bit_cast<float>(std::uint32_t(bits));
    if (std::isfinite(f)) return printed("%.9g", f) + ":f32";
  }
  if (a.size == 8 && t == "double") {
    const double d = std::bit_cast<double>(bits);
    if (std::isfinite(d)) return printed("%.17g", d) + ":f64";
  }
  const bool isSigned = t == "int" || t == "long" || t == "long long" || t == "short" || t == "signed char" ||
                        t == "char" || t == "int64_t" || t == "int32_t";
  if (a.size == 8) {
    if (isSigned) return std::to_string(std::int64_t(bits)) + ":i64";
    return std::to_string(bits) + ":u64";
  }
  if (isSigned && a.size == 4) return std::to_string(std::int32_t(std::uint32_t(bits)));
  if (isSigned && a.size == 2) return std::to_string(std::int16_t(std::uint16_t(bits)));
  // 1-, 2- and 4-byte parameters travel in a 4-byte slot: the driver copies
  // the parameter's size from its low bytes (little endian).
  const std::uint64_t mask = a.size >= 4 ? 0xffffffffull : (1ull << (8 * a.size)) - 1;
  return std::to_string(bits & mask) + ":u32";
}

std::string tritonScalar(const LaunchArg& a, std::vector<std::pair<std::string, std::int64_t>>& params,
                         const std::set<std::string>& taken) {
  const std::string& t = a.type;
  if (a.value.is_boolean()) return a.value.get<bool>() ? "1" : "0";
  if (t == "fp32" || t == "fp16" || t == "bf16" || t == "fp64" || a.value.is_number_float()) {
    const double d = a.value.get<double>();
    return printed(t == "fp64" ? "%.17g" : "%.9g", d) + (t == "fp64" ? ":f64" : ":f32");
  }
  const std::int64_t v = a.value.get<std::int64_t>();
  const bool wide = v >= (std::int64_t(1) << 31) || v < -(std::int64_t(1) << 31);
  // A named integer reads better and becomes a sweep key; a name the
  // expressions reserve stays a literal.
  static const std::set<std::string> reserved = {"min",     "max",      "ceil_div", "pow2ceil", "pid_x",
                                                 "pid_y",   "pid_z",    "nctas_x",  "nctas_y",  "nctas_z",
                                                 kNumWarps, kNumStages, kNumCtas};
  if (!reserved.count(a.name) && !taken.count(a.name)) {
    upsert(params, a.name, v);
    return wide ? a.name + ":i64" : a.name;
  }
  return std::to_string(v) + (wide ? ":i64" : "");
}

std::string commandLine(const CaptureInfo& c) {
  std::string s;
  for (const std::string& a : c.command) s += (s.empty() ? "" : " ") + a;
  return s.size() > 200 ? s.substr(0, 200) + "…" : s;
}

}  // namespace

std::string captureConfigName(const LaunchRecord& r) {
  std::string k = kernelShortName(r.kernel.empty() ? r.symbol : r.kernel);  // no templates, no parameters
  if (auto p = k.rfind("::"); p != std::string::npos) k = k.substr(p + 2);
  std::string out;
  for (char c : k) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.size() > 60) out.resize(60);
  if (out.empty()) out = "kernel";
  return out + "-" + r.id + ".tscfg.json";
}

namespace {

/// Why a launch as a whole cannot become a config; "" when it can.
std::string unsupportedLaunch(const LaunchRecord& r, bool triton) {
  if (r.language == "triton" && !triton)
    return r.source.copy.empty() ? "the kernel's .py file was not copied" : "no Triton metadata recorded";
  if (!triton && r.image.empty()) return "the kernel's module image was not recorded";
  return "";
}

std::string description(const LaunchRecord& r, const CaptureInfo& capture) {
  std::string desc = "Captured from `" + commandLine(capture) + "`: ";
  desc += r.index >= 0 ? "launch " + std::to_string(r.index) : "launch " + r.id;
  desc += " (" + r.recorder + " recorder, pid " + std::to_string(r.pid) + ")";
  if (r.kernelNs) desc += ", " + formatDuration(*r.kernelNs) + " in the program";
  return desc +
         ". Inputs are the program's bytes before the launch; each "
         "output's expected is the program's "
         "result.";
}

/// The memory regions that struct pointers reach, as tensors named as the
/// regions.
bool addMemoryTensors(const LaunchRecord& r, Config& c, Placement& place, bool* anyExpected,
                      std::string* whyNot) {
  for (const LaunchArg& m : r.memory) {
    TensorSpec t = tensorEntry(r, m, whyNot);
    if (!whyNot->empty()) return false;
    *anyExpected |= !t.expected.empty();
    t.name = m.name;
    putTensor(c, std::move(t));
    place.tensorOf[m.name] = m.name;
  }
  return true;
}

/// Fills the placeholders of bytes arguments once every tensor is known; a
/// warning for the description when words were left as bytes ("" otherwise).
std::string fillBytesArgs(const LaunchRecord& r,
                          const std::vector<std::pair<std::size_t, const LaunchArg*>>& bytesArgs,
                          const Placement& place, std::vector<ArgSpec>& args, std::string* whyNot) {
  std::string ambiguous;
  for (const auto& [i, a] : bytesArgs) {
    args[i] = bytesArg(r, *a, place, whyNot);
    if (!whyNot->empty()) return "";
    // A pointer at its tensor's first byte (the same buffer passed twice): the
    // tensor's name.
    if (a->kind == "pointer" && args[i].relocations.size() == 1 && args[i].relocations[0].delta == 0)
      args[i] = tensorArg(args[i].relocations[0].tensor);
    for (const LaunchWord& w : a->words)
      if (w.cls == "ambiguous")
        ambiguous += (ambiguous.empty() ? "" : ", ") + a->name + "+" + std::to_string(w.offset);
  }
  if (ambiguous.empty()) return "";
  return " Warning: the words at " + ambiguous +
         " look like device pointers but cannot be told apart from integers: "
         "they are replayed as the "
         "program's bytes, not relocated (docs/capture.md).";
}

}  // namespace

namespace {

/// What the arguments became: tensors, args, params and constexprs of `c`.
struct ArgsBuilder {
  const LaunchRecord& r;
  bool triton;
  Config& c;
  std::string* whyNot;
  std::set<std::string> taken;                     // tensor and constexpr names: not params
  std::map<std::uint64_t, std::string> byPointer;  // one buffer per address and view
  bool anyExpected = false;
  // Memory that pointers inside structs reach, and which tensor each argument
  // or region became: bytes arguments are filled in once all are known.
  Placement place;
  std::vector<std::pair<std::size_t, const LaunchArg*>> bytesArgs;

  void asBytes(const LaunchArg& a) {
    bytesArgs.emplace_back(c.args.size(), &a);
    c.args.emplace_back();
  }
  bool tensorOrPointer(const LaunchArg& a) {
    auto same = a.dataPtr != 0 ? byPointer.find(a.dataPtr) : byPointer.end();
    if (same != byPointer.end() && c.tensor(same->second)->shape == dims(a.shape)) {
      place.tensorOf[a.name] = same->second;  // the same tensor passed twice (in place)
    } else {
      TensorSpec t = tensorEntry(r, a, whyNot);
      if (!whyNot->empty()) return false;
      anyExpected |= !t.expected.empty();
      putTensor(c, std::move(t));
      place.tensorOf[a.name] = a.name;
      if (a.leadBytes != 0) place.leadOf[a.name] = a.leadBytes;
      if (a.dataPtr != 0) byPointer.emplace(a.dataPtr, a.name);
    }
    // A pointer past the bytes saved before it is passed as the tensor's
    // address plus the lead.
    if (place.leadOf.count(place.tensorOf[a.name]))
      asBytes(a);
    else
      c.args.push_back(tensorArg(place.tensorOf[a.name]));
    return true;
  }
  bool add(const LaunchArg& a) {
    if (a.kind == "bytes" || (a.kind == "pointer" && !a.rebasedOnto.empty())) {
      asBytes(a);
    } else if (a.kind == "tensor" || a.kind == "pointer") {
      return tensorOrPointer(a);
    } else if (a.kind == "constexpr") {
      upsert(c.kernel.defines, a.name, constexprValue(a.value));
    } else if (a.kind == "scalar") {
      if (a.value.is_null()) {
        *whyNot = "argument " + a.name + ": no value recorded";
        return false;
      }
      c.args.push_back(scalarArg(triton ? tritonScalar(a, c.params, taken) : cudaScalar(a)));
    } else if (a.kind == "none") {
      if (triton && r.triton->signature.value(a.name, "") == "constexpr") {
        *whyNot = "argument " + a.name + " is None: a config cannot pass None yet";
        return false;
      }
      c.args.push_back(scalarArg("0:u64"));  // a null pointer
    } else {
      *whyNot = "argument " + a.name + ": " + (a.reason.empty() ? "not resolved" : a.reason);
      return false;
    }
    return true;
  }
};

void setKernel(const LaunchRecord& r, bool triton, Config& c) {
  KernelSpec& k = c.kernel;
  if (triton) {
    k.language = "triton";
    k.source = r.source.copy;
    k.entry = r.source.function.empty() ? r.kernel : r.source.function;
    if (k.defines.empty())  // a recorder that lists constexprs apart from the args
      for (const auto& [name, v] : r.triton->constexprs.items()) upsert(k.defines, name, constexprValue(v));
    k.numWarps = r.triton->numWarps;
    k.numStages = r.triton->numStages;
    k.numCtas = r.triton->numCtas > 1 ? r.triton->numCtas : 1;
    c.launch.grid = dims(r.grid);
    return;
  }
  k.source = r.image;
  k.entry = r.symbol.empty() ? r.kernel : r.symbol;
  c.launch.grid = dims(r.grid);
  c.launch.block = dims(r.block);
  c.launch.sharedBytes = std::to_string(r.sharedBytes);
  // The program's launch ran with this dynamic shared memory: whatever opt-in above the
  // 48 KiB default it needed, the program's host code made.
  c.launch.sharedOptIn = r.sharedBytes > 0 && r.fault.empty();
  if (r.cluster[0] * r.cluster[1] * r.cluster[2] > 1) c.launch.cluster = dims(r.cluster);
}

}  // namespace

ojson configFromLaunch(const LaunchRecord& r, const CaptureInfo& capture, std::string* whyNot) {
  const bool triton = r.language == "triton" && r.triton && !r.source.copy.empty();
  *whyNot = unsupportedLaunch(r, triton);
  if (!whyNot->empty()) return {};
  Config c;
  std::string name = captureConfigName(r);
  c.name = name.substr(0, name.size() - std::string(".tscfg.json").size());
  c.description = description(r, capture);
  ArgsBuilder args{r, triton, c, whyNot, {}, {}, false, {}, {}};
  for (const LaunchArg& a : r.args)
    if (a.kind == "tensor" || a.kind == "pointer" || a.kind == "constexpr") args.taken.insert(a.name);
  if (!addMemoryTensors(r, c, args.place, &args.anyExpected, whyNot)) return {};
  for (const LaunchArg& a : r.args)
    if (!args.add(a)) return {};
  const std::string warning = fillBytesArgs(r, args.bytesArgs, args.place, c.args, whyNot);
  if (!whyNot->empty()) return {};
  c.description += warning;
  setKernel(r, triton, c);
  c.reference.op = args.anyExpected ? "npy" : "none";
  c.baseline.kind = "none";
  // The replay is the same kernel on the same bytes: anything but equality is a
  // finding.
  c.tolerance = {0, 0};
  return configDocument(c);
}

}  // namespace tilescope
