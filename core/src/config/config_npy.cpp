// A config's tensors read from .npy files: the references, checked against the
// tensor's dtype and shape with ConfigError paths (the file format is npy.cpp's).
#include "tilescope/base/npy.h"
#include "tilescope/config/config.h"

namespace tilescope {

std::filesystem::path npyRefPath(const Config& config, const std::string& ref) {
  std::filesystem::path p(ref.rfind("npy:", 0) == 0 ? ref.substr(4) : ref);
  return p.is_relative() ? (config.dir / p).lexically_normal() : p;
}

void checkTensorNpy(const Config& config, const ResolvedTensor& tensor, bool expected) {
  const TensorSpec& spec = *tensor.spec;
  std::string path = "tensors." + spec.name + (expected ? ".expected" : ".init");
  const std::string& ref = expected ? spec.expected : spec.init;
  if (ref.rfind("npy:", 0) != 0) throw ConfigError(path, "not an npy: reference");
  std::filesystem::path file = npyRefPath(config, ref);
  NpyHeader h;
  try {
    h = readNpyHeader(file);
  } catch (const NpyError& e) {
    throw ConfigError(path, e.what());
  }
  bool dtypeOk = npyDescrFits(spec.dtype, h.descr);
  if (!dtypeOk || h.shape != tensor.shape)
    throw ConfigError(path, std::string(dtypeOk ? "shape" : "dtype") + " mismatch: '" + file.string() +
                                "' holds " + h.descr + " of shape " + npyShapeText(h.shape) +
                                ", the tensor is " + dtypeName(spec.dtype) + " (" + npyDescr(spec.dtype) +
                                ") of shape " + npyShapeText(tensor.shape));
}

NpyArray loadTensorNpy(const Config& config, const ResolvedTensor& tensor, bool expected) {
  checkTensorNpy(config, tensor, expected);
  const TensorSpec& spec = *tensor.spec;
  try {
    return readNpy(npyRefPath(config, expected ? spec.expected : spec.init));
  } catch (const NpyError& e) {
    throw ConfigError("tensors." + spec.name + (expected ? ".expected" : ".init"), e.what());
  }
}

}  // namespace tilescope
