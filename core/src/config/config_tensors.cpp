// The `tensors` and `tiles` sections of a config.
#include "config_detail.h"
#include "tilescope/base/hash.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

std::uint64_t stableNameHash(const std::string& name) {
  return fnv1a(name);  // the same name gives the same seed on every platform and run
}

namespace {

/// "npy:PATH": the file must exist (relative to the config's folder).
void checkNpyRef(const Node& n, const std::string& value, const std::filesystem::path& dir) {
  std::string file = value.substr(4);
  if (file.empty()) n.fail("missing path after 'npy:'");
  std::filesystem::path p(file);
  if (p.is_relative()) p = (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) n.fail(".npy file '" + p.string() + "' does not exist");
}

TensorSpec parseTensor(const Node& n, const std::string& name, const Config& c, const SymbolCheck& symbols) {
  n.onlyKeys({"dtype", "shape", "strides", "init", "seed", "scale", "output", "expected"});
  TensorSpec t;
  t.name = name;
  Node dtype = n.at("dtype");
  auto parsed = parseDType(dtype.str());
  if (!parsed)
    dtype.fail("unknown dtype '" + clipForMessage(dtype.str()) +
               "' (expected f32 f16 bf16 f64 i32 i64 u8 i8)");
  t.dtype = *parsed;
  Node shape = n.at("shape");
  t.shape = shape.exprList();
  for (std::size_t i = 0; i < t.shape.size(); ++i) symbols.check(shape.at(i), t.shape[i]);
  if (n.has("strides")) {
    Node strides = n.at("strides");
    t.strides = strides.exprList();
    if (t.strides.size() != t.shape.size())
      strides.fail("has " + std::to_string(t.strides.size()) + " entries but shape has " +
                   std::to_string(t.shape.size()));
    for (std::size_t i = 0; i < t.strides.size(); ++i) symbols.check(strides.at(i), t.strides[i]);
  }
  if (n.has("init")) {
    Node init = n.at("init");
    t.init = init.str();
    if (t.init.rfind("npy:", 0) == 0) {
      checkNpyRef(init, t.init, c.dir);
    } else if (t.init != "randn" && t.init != "rand" && t.init != "zeros" && t.init != "ones" &&
               t.init != "arange") {
      init.fail("unknown init '" + clipForMessage(t.init) +
                "' (expected randn, rand, zeros, ones, arange or npy:PATH)");
    }
  }
  t.seed = stableNameHash(name);
  if (n.has("seed")) {
    std::int64_t s = n.at("seed").integer();
    if (s < 0) n.at("seed").fail("must be >= 0");
    t.seed = static_cast<std::uint64_t>(s);
  }
  if (n.has("scale")) t.scale = n.at("scale").number();
  if (n.has("output")) t.output = n.at("output").boolean();
  if (n.has("expected")) {
    Node e = n.at("expected");
    if (!t.output) e.fail("only an output tensor (\"output\": true) may have an expected result");
    t.expected = e.str();
    if (t.expected.rfind("npy:", 0) != 0)
      e.fail("expected \"npy:PATH\", found \"" + clipForMessage(t.expected) + "\"");
    checkNpyRef(e, t.expected, c.dir);
  }
  return t;
}

}  // namespace

void parseTensors(const Node& n, Config& c, const SymbolCheck& symbols) {
  n.needObject();
  if (n.j.empty()) n.fail("no tensors declared");
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    Node t = n.member(it);
    if (symbols.names.count(it.key()) || symbols.stringDefines.count(it.key()))
      t.fail("tensor name '" + clipForMessage(it.key()) +
             "' is also a define or param; args could not tell them apart");
    c.tensors.push_back(parseTensor(t, it.key(), c, symbols));
  }
}

void parseTiles(const Node& n, Config& c, const SymbolCheck& symbols) {
  n.needObject();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    Node t = n.member(it);
    const TensorSpec* spec = c.tensor(it.key());
    if (!spec) t.fail("unknown tensor '" + clipForMessage(it.key()) + "'");
    if (!spec->output)
      t.fail("tensor '" + clipForMessage(it.key()) + "' is not an output; tiles are declared for outputs");
    t.onlyKeys({"tile", "origin"});
    TileSpec tile;
    tile.tensor = it.key();
    for (const char* key : {"tile", "origin"}) {
      Node list = t.at(key);
      auto exprs = list.exprList();
      if (exprs.size() != spec->shape.size())
        list.fail("has " + std::to_string(exprs.size()) + " entries but tensor '" + it.key() + "' has rank " +
                  std::to_string(spec->shape.size()) + " (declare every dimension)");
      for (std::size_t i = 0; i < exprs.size(); ++i) symbols.check(list.at(i), exprs[i]);
      (std::string(key) == "tile" ? tile.tile : tile.origin) = exprs;
    }
    c.tiles.push_back(std::move(tile));
  }
}

}  // namespace tilescope::detail

namespace tilescope {

namespace {
bool isScalable(const TensorSpec& t) {
  return !t.output && isFloating(t.dtype) && t.init != "zeros" && t.init.rfind("npy:", 0) != 0;
}
}  // namespace

std::vector<std::string> scalableInputs(const Config& config) {
  std::vector<std::string> out;
  for (const auto& t : config.tensors)
    if (isScalable(t)) out.push_back(t.name);
  return out;
}

void scaleInputs(Config& config, double factor) {
  for (auto& t : config.tensors)
    if (isScalable(t)) t.scale *= factor;
}

}  // namespace tilescope
