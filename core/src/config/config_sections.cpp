// Kernel, args, launch, reference, baseline, run and sweep sections of a config.
#include <algorithm>
#include <cctype>

#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

namespace {

void parseSource(const Node& n, const std::filesystem::path& dir, KernelSpec& k) {
  k.source = n.str();
  if (k.source.empty()) n.fail("empty path");
  std::filesystem::path p(k.source);
  std::string ext = p.extension().string();
  if (ext == ".py")
    n.fail("unsupported source type '.py' in '" + k.source +
           "': a Triton kernel needs \"language\": \"triton\" in kernel (docs/config.md)");
  if (ext != ".cu" && ext != ".ptx" && ext != ".cubin" && ext != ".fatbin")
    n.fail("unsupported source type '" + ext + "' in '" + k.source +
           "' (expected .cu, .ptx, .cubin or .fatbin)");
  k.sourcePath = p.is_absolute() ? p : (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(k.sourcePath, ec))
    n.fail("source file '" + k.sourcePath.string() + "' does not exist");
}

}  // namespace

namespace {

bool isIdentifier(const std::string& s) {
  auto start = [](unsigned char c) { return std::isalpha(c) || c == '_'; };
  return !s.empty() && start(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [&](unsigned char c) { return start(c) || std::isdigit(c); });
}

}  // namespace

void parseDefines(const Node& n, KernelSpec& k, bool allowBool) {
  n.needObject();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    Node d = n.member(it);
    // A define becomes a -D flag (a compiler may hand it to /bin/sh) and a symbol of
    // expressions; a constexpr a Python keyword argument: each must be a C identifier.
    if (!isIdentifier(it.key()))
      d.fail(nlohmann::json(clipForMessage(it.key())).dump() +
             " is not a name (letters, digits and _, not starting with a digit)");
    DefineValue v;
    if (d.j.is_number_integer() || d.j.is_number_unsigned()) {
      v.i = d.integer();
    } else if (d.j.is_string()) {
      v.isInt = false;
      v.s = d.str();
      if (!allowBool && v.s.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
        d.fail("a define's value cannot hold a line break or a NUL (it becomes one -D flag)");
    } else if (d.j.is_number_float()) {
      v.isInt = false;  // a -D flag only: expressions are integer
      v.isNumber = true;
      v.s = d.j.dump();
    } else if (allowBool && d.j.is_boolean()) {
      v.isInt = false;
      v.isBool = true;
      v.s = d.j.dump();
    } else {
      d.fail(std::string("expected an integer") + (allowBool ? ", a number, a boolean" : "") +
             " or a string, found " + jsonKind(d.j));
    }
    k.defines.emplace_back(it.key(), v);
  }
}

void parseKernel(const Node& n, const std::filesystem::path& dir, KernelSpec& k, bool isReference) {
  if (!isReference && n.has("language")) {
    k.language = n.at("language").str();
    if (k.language == "triton" || k.language == "tilelang") return parsePythonKernel(n, dir, k);
    if (k.language != "cuda")
      n.at("language")
          .fail("unknown language '" + clipForMessage(k.language) + "' (expected cuda, triton or tilelang)");
  }
  // A .py source without a language is a Triton kernel missing its language: say that
  // before its Triton keys are reported as unknown.
  if (!isReference && n.has("source") && n.at("source").j.is_string()) {
    const std::string src = n.at("source").str();
    if (src.size() > 3 && src.compare(src.size() - 3, 3, ".py") == 0) parseSource(n.at("source"), dir, k);
  }
  if (!isReference) n.onlyKeys({"language", "source", "entry", "compiler", "options", "defines"});
  k.baseDir = dir;
  parseSource(n.at("source"), dir, k);
  k.entry = n.at("entry").str();
  if (k.entry.empty()) n.at("entry").fail("empty kernel name");
  if (n.has("compiler")) {
    k.compiler = n.at("compiler").str();
    if (k.compiler != "nvrtc" && k.compiler != "nvcc")
      n.at("compiler").fail("unknown compiler '" + k.compiler + "' (expected nvrtc or nvcc)");
  }
  if (n.has("options")) {
    Node o = n.at("options");
    o.needShortArray();
    for (std::size_t i = 0; i < o.j.size(); ++i) k.options.push_back(o.at(i).str());
  }
  if (n.has("defines")) parseDefines(n.at("defines"), k, false);
}

ArgSpec parseArg(const Node& n, const Config& c, const SymbolCheck& symbols) {
  if (n.j.is_object()) return parseBytesArg(n, c);
  ArgSpec a;
  a.text = n.j.is_string() ? n.str() : n.expr();
  if (n.j.is_string() && c.tensor(a.text)) {
    a.isTensor = true;
    a.tensor = a.text;
    return a;
  }
  a.expr = a.text;
  auto colon = a.text.rfind(':');
  if (colon != std::string::npos) {
    std::string suffix = a.text.substr(colon + 1);
    a.expr = a.text.substr(0, colon);
    static const std::pair<const char*, ScalarType> kTypes[] = {
        {"i32", ScalarType::i32}, {"i64", ScalarType::i64}, {"u32", ScalarType::u32},
        {"u64", ScalarType::u64}, {"f32", ScalarType::f32}, {"f64", ScalarType::f64}};
    bool found = false;
    for (const auto& [name, type] : kTypes)
      if (suffix == name) a.type = type, found = true;
    if (!found)
      n.fail("unknown argument type ':" + clipForMessage(suffix) + "' in '" + clipForMessage(a.text) +
             "' (expected :i32 :i64 :u32 :u64 :f32 :f64)");
  }
  if (a.expr.find_first_not_of(" \t") == std::string::npos) n.fail("empty expression in '" + a.text + "'");
  if (a.type == ScalarType::f32 || a.type == ScalarType::f64) {
    // Floating args: check by evaluating with every known symbol (values do not matter here).
    SymbolTable probe;
    for (const auto& s : symbols.names) probe[s] = 1;
    try {
      evalFloat(a.expr, probe);
    } catch (const ExprError& e) {
      n.fail(e.what());
    }
  } else {
    // A bare unknown name is most likely a misspelt tensor: say so.
    bool bareName =
        !a.expr.empty() && (std::isalpha(static_cast<unsigned char>(a.expr[0])) || a.expr[0] == '_') &&
        std::all_of(a.expr.begin(), a.expr.end(),
                    [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
    if (bareName && !symbols.names.count(a.expr) && !symbols.stringDefines.count(a.expr))
      n.fail("'" + clipForMessage(a.expr) + "' is neither a tensor nor a known symbol (unknown symbol '" +
             clipForMessage(a.expr) + "')");
    if (!exactIntegerLiteral(a.expr, a.type)) symbols.check(n, a.expr);
  }
  return a;
}

LaunchSpec parseLaunch(const Node& n, const SymbolCheck& symbols, const KernelSpec& kernel) {
  if (kernel.isPython()) return parsePythonLaunch(n, symbols, kernel);
  n.onlyKeys({"grid", "block", "shared_bytes", "cluster"});
  LaunchSpec l;
  auto dims = [&](const char* key) {
    Node d = n.at(key);
    auto list = d.exprList();
    if (list.size() > 3) d.fail("expected at most 3 dimensions, found " + std::to_string(list.size()));
    for (std::size_t i = 0; i < list.size(); ++i) symbols.check(d.at(i), list[i]);
    while (list.size() < 3) list.push_back("1");
    return list;
  };
  l.grid = dims("grid");
  l.block = dims("block");
  if (n.has("cluster")) l.cluster = dims("cluster");
  if (n.has("shared_bytes")) {
    l.sharedBytes = n.at("shared_bytes").expr();
    symbols.check(n.at("shared_bytes"), l.sharedBytes);
  }
  return l;
}

namespace {

std::string tensorRef(const Node& n, const Config& c, bool mustBeOutput = false) {
  std::string name = n.str();
  const TensorSpec* t = c.tensor(name);
  if (!t) n.fail("unknown tensor '" + clipForMessage(name) + "'");
  if (mustBeOutput && !t->output) n.fail("tensor '" + name + "' is not an output (\"output\": true)");
  return name;
}

void parseKernelReference(const Node& n, Config& c, const SymbolCheck& symbols) {
  n.onlyKeys({"op", "source", "entry", "compiler", "options", "defines", "args", "launch"});
  ReferenceSpec& r = c.reference;
  parseKernel(n, c.dir, r.kernel, true);
  // The reference kernel's own integer defines are symbols of its expressions too.
  SymbolCheck own = symbols;
  for (const auto& [name, v] : r.kernel.defines) (v.isInt ? own.names : own.stringDefines).insert(name);
  Node args = n.at("args");
  args.needShortArray();
  for (std::size_t i = 0; i < args.j.size(); ++i) r.args.push_back(parseArg(args.at(i), c, own));
  r.launch = parseLaunch(n.at("launch"), own, r.kernel);
}

}  // namespace

void parseReference(const Node& n, Config& c, const SymbolCheck& symbols) {
  n.needObject();
  ReferenceSpec& r = c.reference;
  r.op = n.at("op").str();
  if (r.op == "gemm") {
    n.onlyKeys({"op", "a", "b", "out", "trans_a", "trans_b", "alpha", "beta"});
    r.a = tensorRef(n.at("a"), c);
    r.b = tensorRef(n.at("b"), c);
    r.out = tensorRef(n.at("out"), c, true);
    if (n.has("trans_a")) r.transA = n.at("trans_a").boolean();
    if (n.has("trans_b")) r.transB = n.at("trans_b").boolean();
    if (n.has("alpha")) r.alpha = n.at("alpha").number();
    if (n.has("beta")) r.beta = n.at("beta").number();
  } else if (r.op == "sdpa") {
    n.onlyKeys({"op", "q", "k", "v", "out", "scale", "causal", "layout"});
    r.q = tensorRef(n.at("q"), c);
    r.k = tensorRef(n.at("k"), c);
    r.v = tensorRef(n.at("v"), c);
    r.out = tensorRef(n.at("out"), c, true);
    if (n.has("scale")) r.scale = n.at("scale").number();
    if (n.has("causal")) r.causal = n.at("causal").boolean();
    if (n.has("layout")) {
      r.layout = n.at("layout").str();
      if (r.layout != "bhsd") n.at("layout").fail("unsupported layout '" + r.layout + "' (expected bhsd)");
    }
  } else if (r.op == "kernel") {
    parseKernelReference(n, c, symbols);
  } else if (r.op == "npy" || r.op == "none") {
    n.onlyKeys({"op"});
    if (r.op == "npy")
      for (const auto& t : c.tensors)
        if (t.output && t.expected.empty())
          throw ConfigError("tensors." + t.name + ".expected",
                            "missing: reference op 'npy' needs \"expected\": \"npy:PATH\" on every output");
  } else {
    n.at("op").fail("unknown reference op '" + clipForMessage(r.op) +
                    "' (expected gemm, sdpa, kernel, npy or none)");
  }
}

void parseBaseline(const Node& n, Config& c) {
  if (n.j.is_string()) {
    c.baseline.kind = n.str();
    const char* kinds[] = {"cublas", "sdpa", "sdpa_math", "none"};
    if (std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return c.baseline.kind == k; }))
      n.fail("unknown baseline '" + clipForMessage(c.baseline.kind) +
             "' (expected cublas, sdpa, sdpa_math, none or {\"command\": ...})");
    return;
  }
  if (!n.j.is_object())
    n.fail("expected a baseline name (cublas, sdpa, sdpa_math, none) or {\"command\": ...}, found " +
           jsonKind(n.j));
  n.onlyKeys({"command", "parse"});
  c.baseline.kind = "command";
  c.baseline.command = n.at("command").str();
  if (c.baseline.command.empty()) n.at("command").fail("empty command");
  if (n.has("parse")) {
    c.baseline.parse = n.at("parse").str();
    if (c.baseline.parse != "json")
      n.at("parse").fail("unsupported parse '" + c.baseline.parse + "' (expected json)");
  }
}

void parseRun(const Node& n, Config& c) {
  n.onlyKeys(
      {"timeout_s", "slow_factor", "time_budget_s", "min_reps", "max_reps", "warmup", "counters", "metrics"});
  RunSettings& r = c.run;
  auto positive = [&](const char* key, double& out) {
    if (!n.has(key)) return;
    out = n.at(key).number();
    if (!(out > 0)) n.at(key).fail("must be > 0");
  };
  auto count = [&](const char* key, int& out, int least) {
    if (!n.has(key)) return;
    std::int64_t v = n.at(key).integer();
    if (v < least || v > 1000000) n.at(key).fail("must be between " + std::to_string(least) + " and 1000000");
    out = static_cast<int>(v);
  };
  positive("timeout_s", r.timeoutS);
  positive("slow_factor", r.slowFactor);
  positive("time_budget_s", r.timeBudgetS);
  count("min_reps", r.minReps, 1);
  count("max_reps", r.maxReps, 1);
  count("warmup", r.warmup, 0);
  if (r.maxReps < r.minReps)
    n.at("max_reps").fail("max_reps is below min_reps (" + std::to_string(r.minReps) + ")");
  if (n.has("counters")) {
    // true / false, or the set by name (counters.h CounterSet).
    const Node c = n.at("counters");
    if (c.j.is_string()) {
      r.counterSet = c.str(16);
      if (r.counterSet != "basic" && r.counterSet != "full" && r.counterSet != "none")
        c.fail("expected true, false, \"basic\", \"full\" or \"none\"");
      r.counters = r.counterSet != "none";
    } else {
      r.counters = c.boolean();
    }
  }
  if (n.has("metrics")) {
    // The chip's own list decides whether a name exists (the worker and `check`
    // ask CUPTI); here only the shape of an ncu metric name: unit__counter.rollup.
    Node m = n.at("metrics");
    m.needArray();
    for (std::size_t i = 0; i < m.j.size(); ++i) {
      Node e = m.at(i);
      std::string name = e.str();
      const bool shaped =
          name.find("__") != std::string::npos && name.find('.') != std::string::npos &&
          name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") == std::string::npos;
      if (!shaped)
        e.fail("'" + name +
               "' is not a metric name: expected ncu's form unit__counter.rollup, "
               "e.g. smsp__warps_launched.sum or dram__throughput.avg.pct_of_peak_sustained_elapsed");
      r.metrics.push_back(name);
    }
  }
}

void parseSweep(const Node& n, Config& c) {
  n.needObject();
  std::size_t points = 1;
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    if (it.key() == "trials") continue;  // handled by the caller
    Node axis = n.member(it);
    bool isDefine = false, isParam = false;
    for (const auto& [name, v] : c.kernel.defines)
      if (name == it.key()) {
        if (!v.isInt) axis.fail("define '" + name + "' is a string; only integer defines can be swept");
        isDefine = true;
      }
    for (const auto& [name, v] : c.params) isParam = isParam || name == it.key();
    const bool isOption = isTritonOption(c.kernel, it.key());
    if (!isDefine && !isParam && !isOption)
      axis.fail("'" + clipForMessage(it.key()) + "' is neither a " +
                (c.kernel.isPython() ? "constexpr (kernel.constexprs)" : "define (kernel.defines)") +
                " nor a param" + (c.kernel.isTriton() ? " nor num_warps/num_stages/num_ctas" : "") +
                "; a sweep key must be one");
    axis.needArray();
    if (axis.j.empty()) axis.fail("empty list of values");
    // Checked before the values are read: a sweep's points are expanded (and
    // each one captured) one by one.
    if (axis.j.size() > ConfigLimits::kMaxSweepPoints / points)
      axis.fail("the sweep has " + std::to_string(points) + " x " + std::to_string(axis.j.size()) +
                " points so far, over the limit of " + std::to_string(ConfigLimits::kMaxSweepPoints));
    points *= axis.j.size();
    SweepAxis s{it.key(), {}};
    for (std::size_t i = 0; i < axis.j.size(); ++i) {
      s.values.push_back(axis.at(i).integer());
      if (isOption) checkTritonOption(axis.at(i), it.key(), s.values.back());
    }
    c.sweep.push_back(std::move(s));
  }
}

}  // namespace tilescope::detail
