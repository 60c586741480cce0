// initTritonConfig: a starting config from a Triton kernel's signature.
#include "tilescope/config/triton_init.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include "config_detail.h"
#include "tilescope/base/regex.h"
#include "tilescope/config/config.h"

namespace tilescope {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string upper(std::string s) {
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool isFloatScalar(const TritonParamInfo& p) {
  if (p.annotation.rfind("fp", 0) == 0 || p.annotation.rfind("bf", 0) == 0) return true;
  static const Regex floaty(R"((^|_)(eps|epsilon|scale|alpha|beta|temperature|momentum|lr|p|dropout)(_|$))",
                            RegexOptions{/*icase=*/true});
  return floaty.search(p.name);
}

DType dtypeForAnnotation(const std::string& a) {
  static const std::pair<const char*, DType> kMap[] = {
      {"*fp16", DType::f16}, {"*bf16", DType::bf16}, {"*fp32", DType::f32}, {"*fp64", DType::f64},
      {"*i32", DType::i32},  {"*i64", DType::i64},   {"*u8", DType::u8},    {"*i8", DType::i8}};
  std::string t = a.rfind("*k", 0) == 0 ? "*" + a.substr(2) : a;
  for (const auto& [ann, dt] : kMap)
    if (t == ann) return dt;
  return DType::f32;
}

/// Where a stride parameter belongs: tensor index and dimension name ("stride_am" → a, "m";
/// "x_row_stride" → x, "row"); tensor -1 when no tensor name fits.
std::pair<int, std::string> strideOwner(const std::string& stride, const std::vector<std::string>& tensors) {
  std::string rest = lower(stride);
  if (rest.rfind("stride_", 0) == 0)
    rest = rest.substr(7);
  else if (rest.size() > 7 && rest.compare(rest.size() - 7, 7, "_stride") == 0)
    rest = rest.substr(0, rest.size() - 7);
  else
    return {-1, ""};
  int best = -1;
  std::size_t bestLen = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string t = lower(tensors[i]);
    if (rest.rfind(t, 0) == 0 && t.size() > bestLen) best = int(i), bestLen = t.size();
  }
  if (best < 0) return {-1, ""};
  std::string dim = rest.substr(bestLen);
  if (!dim.empty() && dim[0] == '_') dim = dim.substr(1);
  return {best, dim};
}

/// A constexpr's value as the helper gave it.
DefineValue constexprValue(const nlohmann::json& v) { return DefineValue::fromJson(v); }

nlohmann::json guessConstexpr(const std::string& name, int blockCount) {
  const std::string n = upper(name);
  if (n.find("BLOCK") != std::string::npos) return blockCount == 1 ? 1024 : 64;
  if (n.find("GROUP") != std::string::npos) return 8;
  if (n.find("HEAD") != std::string::npos || n == "D") return 64;
  if (n.rfind("BUG", 0) == 0 || n.rfind("IS_", 0) == 0 || n.rfind("USE_", 0) == 0 ||
      n.rfind("HAS_", 0) == 0 || n.rfind("EVEN", 0) == 0)
    return false;
  return 16;
}

}  // namespace

std::string tensorNameForPointer(const std::string& param) {
  static const Regex suffix(R"((_ptrs?|Ptrs?|_p)$)");
  std::string t = suffix.replaceAll(param, "");
  return t.empty() ? param : t;
}

TritonSignatureInfo tritonSignatureFromJson(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("the Triton helper's answer is not a JSON object");
  if (!j.value("ok", false)) {
    std::string where = j.value("line", 0) > 0
                            ? j.value("file", std::string()) + ":" + std::to_string(j.value("line", 0)) + ": "
                            : "";
    throw std::runtime_error(where + j.value("message", std::string("the Triton helper failed")));
  }
  TritonSignatureInfo s;
  s.name = j.value("name", std::string());
  s.file = j.value("file", std::string());
  s.defLine = j.value("def_line", 0);
  for (const auto& p : j.value("params", nlohmann::json::array())) {
    TritonParamInfo q;
    q.name = p.value("name", std::string());
    q.isConstexpr = p.value("constexpr", false);
    q.kind = p.value("kind", std::string(q.isConstexpr ? "" : "scalar"));
    q.stored = p.value("stored", false);
    q.annotation = p.value("annotation", std::string());
    if (p.contains("default")) q.defaultValue = p["default"];
    s.params.push_back(std::move(q));
  }
  for (const auto& a : j.value("program_id_axes", nlohmann::json::array()))
    s.programIdAxes.push_back(a.get<int>());
  s.autotuneConfigs = j.value("autotune_configs", nlohmann::json::array());
  return s;
}

namespace {

/// Sets `name` in a list kept in file order (a name set again keeps its place).
template <class T>
void upsert(std::vector<std::pair<std::string, T>>& list, const std::string& name, T value) {
  for (auto& [n, v] : list)
    if (n == name) {
      v = std::move(value);
      return;
    }
  list.emplace_back(name, std::move(value));
}

bool hasParam(const std::vector<std::pair<std::string, std::int64_t>>& params, const std::string& name) {
  return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

ArgSpec tensorArg(const std::string& name) {
  ArgSpec a;
  a.text = a.tensor = name;
  a.isTensor = true;
  return a;
}

/// `expr`, or `expr:f32` for a floating one.
ArgSpec exprArg(const std::string& expr, ScalarType type = ScalarType::i32) {
  ArgSpec a;
  a.expr = expr;
  a.type = type;
  a.text = type == ScalarType::f32 ? expr + ":f32" : expr;
  return a;
}

/// A config being drafted from a signature: the parameters sorted by what they
/// are, the tensors named after the pointers, and the params (sizes) so far, in
/// the order the config will list them.
struct TritonDraft {
  std::vector<const TritonParamInfo*> pointers, sizes, strides, floats, constexprs;  ///< signature order
  int blockCount = 0;                                        ///< constexprs named BLOCK...
  std::vector<std::string> tensorNames;                      ///< one per pointer
  std::vector<std::pair<std::string, std::int64_t>> params;  ///< size name -> value
  std::vector<std::vector<std::string>> dims;                ///< each tensor's shape (size names)
  std::map<std::string, std::pair<int, int>> strideSlot;     ///< stride param -> (tensor, dim index)
  bool rowPrograms = false;                                  ///< one program per row

  /// The size param of a dimension ("m" -> M, n_m, ms), made up when none is.
  std::string sizeFor(const std::string& dim) {
    const std::string d = lower(dim);
    for (const auto* p : sizes) {
      const std::string n = lower(p->name);
      if (n == d || n == "n_" + d || n == d + "s" || n == "n_" + d + "s") return p->name;
    }
    std::string fresh = upper(dim.empty() ? "N" : dim);
    if (!hasParam(params, fresh)) params.emplace_back(fresh, 1024);
    return fresh;
  }
};

/// The parameters by kind, and the tensors' names (a pointer's name without _ptr).
TritonDraft sortParams(const TritonSignatureInfo& sig) {
  TritonDraft d;
  for (const auto& p : sig.params) {
    if (p.isConstexpr) {
      d.constexprs.push_back(&p);
      d.blockCount += upper(p.name).find("BLOCK") != std::string::npos;
    } else if (p.kind == "pointer") {
      d.pointers.push_back(&p);
    } else if (isFloatScalar(p)) {
      d.floats.push_back(&p);
    } else if (lower(p.name).find("stride") != std::string::npos) {
      d.strides.push_back(&p);
    } else {
      d.sizes.push_back(&p);
    }
  }
  std::set<std::string> taken;
  for (const auto& p : sig.params) taken.insert(p.name);
  for (const auto* p : d.pointers) {
    std::string t = tensorNameForPointer(p->name);
    if (t != p->name && taken.count(t)) t += "_t";
    taken.insert(t);
    d.tensorNames.push_back(t);
  }
  for (const auto* p : d.sizes) upsert<std::int64_t>(d.params, p->name, 1024);
  return d;
}

/// Each tensor's shape from the strides that name it; 1-D over the first size otherwise.
std::vector<TensorSpec> draftTensors(TritonDraft& d) {
  d.dims.assign(d.pointers.size(), {});
  for (const auto* s : d.strides) {
    auto [t, dim] = strideOwner(s->name, d.tensorNames);
    if (t < 0) continue;
    if (dim.empty() || dim == "row" || dim == "rows") {
      d.rowPrograms = true;  // one row stride: a 2-D tensor walked row by row
      d.dims[std::size_t(t)] = {d.sizeFor("rows"), d.sizes.empty() ? d.sizeFor("N") : d.sizes.back()->name};
      d.strideSlot[s->name] = {t, 0};
      continue;
    }
    d.strideSlot[s->name] = {t, int(d.dims[std::size_t(t)].size())};
    d.dims[std::size_t(t)].push_back(d.sizeFor(dim));
  }
  std::vector<TensorSpec> tensors;
  for (std::size_t i = 0; i < d.pointers.size(); ++i) {
    if (d.dims[i].empty()) d.dims[i] = {d.sizes.empty() ? d.sizeFor("N") : d.sizes.front()->name};
    TensorSpec t;
    t.name = d.tensorNames[i];
    t.dtype = dtypeForAnnotation(d.pointers[i]->annotation);
    t.shape = d.dims[i];
    t.output = d.pointers[i]->stored;
    t.init = t.output ? "" : "randn";
    t.seed = t.output ? detail::stableNameHash(t.name) : i + 1;  // an output's seed: its default
    // Two pointers of one tensor name: the later one's, in the first one's place.
    auto same = std::find_if(tensors.begin(), tensors.end(), [&](const auto& x) { return x.name == t.name; });
    if (same != tensors.end())
      *same = std::move(t);
    else
      tensors.push_back(std::move(t));
  }
  return tensors;
}

/// The kernel's arguments in signature order: tensors, scalars, strides as
/// row-major products of the sizes after them.
std::vector<ArgSpec> draftArgs(const TritonSignatureInfo& sig, TritonDraft& d) {
  std::vector<ArgSpec> args;
  for (const auto& p : sig.params) {
    if (p.isConstexpr) continue;
    if (p.kind == "pointer") {
      auto it = std::find(d.pointers.begin(), d.pointers.end(), &p);
      args.push_back(tensorArg(d.tensorNames[std::size_t(it - d.pointers.begin())]));
    } else if (std::find(d.floats.begin(), d.floats.end(), &p) != d.floats.end()) {
      args.push_back(exprArg(lower(p.name).find("eps") != std::string::npos ? "1e-5" : "1", ScalarType::f32));
    } else if (auto it = d.strideSlot.find(p.name); it != d.strideSlot.end()) {
      // Row-major: the stride of a dimension is the product of the ones after it.
      const auto& dims = d.dims[std::size_t(it->second.first)];
      std::string e;
      for (std::size_t k = std::size_t(it->second.second) + 1; k < dims.size(); ++k)
        e += (e.empty() ? "" : " * ") + dims[k];
      args.push_back(exprArg(e.empty() ? "1" : e));
      args.back().integer = e.empty();  // written as 1, not "1"
    } else if (std::find(d.strides.begin(), d.strides.end(), &p) != d.strides.end()) {
      upsert<std::int64_t>(d.params, p.name, 1);  // a stride no tensor name explains: fill it in
      args.push_back(exprArg(p.name));
    } else {
      args.push_back(exprArg(p.name));
    }
  }
  return args;
}

/// Each constexpr's value: the first autotune config's, the default, else a guess by name.
std::vector<std::pair<std::string, DefineValue>> draftConstexprs(const TritonDraft& d,
                                                                 const nlohmann::json& tuned) {
  std::vector<std::pair<std::string, DefineValue>> values;
  for (const auto* p : d.constexprs) {
    nlohmann::json v = p->defaultValue;
    if (tuned.contains("kwargs") && tuned["kwargs"].contains(p->name)) v = tuned["kwargs"][p->name];
    if (v.is_null()) v = guessConstexpr(p->name, d.blockCount);
    upsert(values, p->name, constexprValue(v));
  }
  return values;
}

/// The grid: rows for a row-per-program kernel, else ceil_div(size, BLOCK_size) for each
/// BLOCK whose size is a dimension of an output (BLOCK_K of a matmul tiles the reduction).
std::vector<std::string> draftGrid(const TritonSignatureInfo& sig, TritonDraft& d,
                                   const std::vector<std::pair<std::string, DefineValue>>& constexprs) {
  std::set<std::string> outputDims;
  for (std::size_t i = 0; i < d.pointers.size(); ++i)
    if (d.pointers[i]->stored) outputDims.insert(d.dims[i].begin(), d.dims[i].end());
  std::vector<std::string> factors;
  for (const auto& [name, value] : constexprs) {
    const std::string n = upper(name);
    if (n.find("BLOCK") == std::string::npos || !value.toJson().is_number_integer()) continue;
    static const Regex blockPrefix(R"(^BLOCK(_SIZE)?_?)");
    std::string dim = blockPrefix.replaceAll(n, "");
    for (const auto* s : d.sizes)
      if (!dim.empty() && lower(s->name) == lower(dim) && (outputDims.empty() || outputDims.count(s->name)))
        factors.push_back("ceil_div(" + s->name + ", " + name + ")");
  }
  if (factors.empty() && d.blockCount == 1 && !d.sizes.empty())
    for (const auto* p : d.constexprs)
      if (upper(p->name).find("BLOCK") != std::string::npos)
        factors.push_back("ceil_div(" + d.sizes.front()->name + ", " + p->name + ")");
  if (d.rowPrograms) return {d.sizeFor("rows")};
  if (sig.programIdAxes.size() >= 2 && factors.size() >= 2) return factors;
  if (factors.empty()) return {"1"};
  std::string g;
  for (const auto& f : factors) g += (g.empty() ? "" : " * ") + f;
  return {g};
}

}  // namespace

nlohmann::ordered_json initTritonConfig(const TritonSignatureInfo& sig, const std::string& source) {
  const nlohmann::json tuned = sig.autotuneConfigs.is_array() && !sig.autotuneConfigs.empty()
                                   ? sig.autotuneConfigs[0]
                                   : nlohmann::json::object();
  Config c;
  c.name = sig.name;
  c.description = "Started by tilescope-run init-triton from " + source + "::" + sig.name +
                  ": check the tensor shapes and dtypes, the sizes in params, the grid and the "
                  "constexprs, then add tiles, a reference and a baseline (docs/config.md).";
  // In this order: each step may add a size to the params.
  TritonDraft d = sortParams(sig);
  c.tensors = draftTensors(d);
  c.args = draftArgs(sig, d);
  KernelSpec& k = c.kernel;
  k.language = "triton";
  k.source = source;
  k.entry = sig.name;
  k.defines = draftConstexprs(d, tuned);
  k.numWarps = tuned.value(kNumWarps, 4);
  k.numStages = tuned.value(kNumStages, 3);
  c.launch.grid = draftGrid(sig, d, k.defines);
  c.params = std::move(d.params);
  // Written by the config's field lists; a draft's reference and baseline are
  // "none" (for the person to fill in), its tolerance the default (left out).
  return detail::draftDocument(c);
}

}  // namespace tilescope
