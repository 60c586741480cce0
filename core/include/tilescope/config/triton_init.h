// A starting config for a Triton kernel (`tilescope-run init-triton FILE.py::KERNEL`,
// the GUI's File → New from Triton kernel): pure functions over the signature the
// helper describes (resources/python/tilescope/triton_helper `signature`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilescope {

/// One parameter of a @triton.jit function, as the helper saw it.
struct TritonParamInfo {
  std::string name;
  bool isConstexpr = false;
  std::string kind;             ///< pointer | scalar (not for constexprs)
  bool stored = false;          ///< a pointer the kernel stores through (an output)
  std::string annotation;       ///< "*fp16", "i32", "constexpr", or ""
  nlohmann::json defaultValue;  ///< null when none
};

struct TritonSignatureInfo {
  std::string name;  ///< the kernel's name
  std::string file;
  int defLine = 0;
  std::vector<TritonParamInfo> params;
  std::vector<int> programIdAxes;  ///< tl.program_id axes the body uses
  nlohmann::json autotuneConfigs;  ///< [{kwargs, num_warps, num_stages, num_ctas}] of @triton.autotune
};

/// Parses the helper's `signature` answer; throws std::runtime_error with the helper's
/// message when it reports an error.
TritonSignatureInfo tritonSignatureFromJson(const nlohmann::json& j);

/// "a_ptr" → "a", "output_ptr" → "output", "XPtr" → "X".
std::string tensorNameForPointer(const std::string& param);

/// A tilescope.config/1 document that loads and passes `check`: pointers become
/// tensors (outputs where the kernel stores), sizes become params, strides become
/// row-major expressions where their names tie them to a tensor's dimensions
/// (stride_am, stride_ak → A's [M, K]), constexprs get their defaults (or the first
/// autotune config's values, or a guess), and the grid comes from the sizes and the
/// BLOCK constexprs. The shapes, grid and values are a start: the description says so.
/// `source` is the path the config names (relative to where it is written).
nlohmann::ordered_json initTritonConfig(const TritonSignatureInfo& sig, const std::string& source);

}  // namespace tilescope
