// The field lists of tilescope.config/1 (docs/config.md): one per struct of
// config.h, read by loadConfig (readConfigDocument) and written by
// configDocument, on the codec of config_codec.h. A key of the config is one
// io(...) line here: its reader, its writer and its section's "allowed here"
// list follow from it.
#include "config_codec.h"
#include "tilescope/base/python.h"
#include "tilescope/config/config_document.h"

namespace tilescope::detail {

namespace {

const char* const kFunctionNames[] = {"ceil_div", "min", "max", "pow2ceil"};

std::string count(std::size_t n) { return std::to_string(n); }

// ---------------------------------------------------------------- checks of one value

void nonEmptyName(const Node& n, ReadContext&) {
  if (n.str().empty()) n.fail("empty kernel name");
}

void nonNegative(const Node& n, ReadContext&) {
  if (n.integer() < 0) n.fail("must be >= 0");
}

void nonNegativeNumber(const Node& n, ReadContext&) {
  if (n.number() < 0) n.fail("must be >= 0");
}

void positive(const Node& n, ReadContext&) {
  if (!(n.number() > 0)) n.fail("must be > 0");
}

auto repetitions(int least) {
  return [least](const Node& n, ReadContext&) {
    const std::int64_t v = n.integer();
    if (v < least || v > 1000000) n.fail("must be between " + std::to_string(least) + " and 1000000");
  };
}

auto tritonOption(const char* name) {
  return [name](const Node& n, ReadContext&) { checkTritonOption(n, name, n.integer()); };
}

auto tensorIn(bool mustBeOutput) {
  return [mustBeOutput](const Node& n, ReadContext& ctx) { tensorRef(n, *ctx.config, mustBeOutput); };
}

void checkTrials(const Node& n, ReadContext&) {
  const std::int64_t t = n.integer();
  if (t < 1 || t > 100000) n.fail("trials must be between 1 and 100000, found " + std::to_string(t));
}

void checkLanguage(const Node& n, ReadContext&) {
  const std::string language = n.str();
  if (language != "cuda" && language != "triton" && language != "tilelang")
    n.fail("unknown language '" + clipForMessage(language) + "' (expected cuda, triton or tilelang)");
}

void checkCompiler(const Node& n, ReadContext&) {
  const std::string compiler = n.str();
  if (compiler != "nvrtc" && compiler != "nvcc")
    n.fail("unknown compiler '" + compiler + "' (expected nvrtc or nvcc)");
}

void checkInit(const Node& n, ReadContext& ctx) {
  const std::string init = n.str();
  if (init.rfind("npy:", 0) == 0) {
    checkNpyRef(n, init, ctx.config->dir);
  } else if (init != "randn" && init != "rand" && init != "zeros" && init != "ones" && init != "arange") {
    n.fail("unknown init '" + clipForMessage(init) +
           "' (expected randn, rand, zeros, ones, arange or npy:PATH)");
  }
}

void checkMetricName(const Node& n, ReadContext&) {
  // The chip's own list decides whether a name exists (the worker and `check`
  // ask CUPTI); here only the shape of an ncu metric name: unit__counter.rollup.
  const std::string name = n.str();
  const bool shaped = name.find("__") != std::string::npos && name.find('.') != std::string::npos &&
                      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") == std::string::npos;
  if (!shaped)
    n.fail("'" + name +
           "' is not a metric name: expected ncu's form unit__counter.rollup, "
           "e.g. smsp__warps_launched.sum or dram__throughput.avg.pct_of_peak_sustained_elapsed");
}

const auto atMost3 = [](const Node& n, const std::vector<std::string>& list, ReadContext&) {
  if (list.size() > 3) n.fail("expected at most 3 dimensions, found " + count(list.size()));
};

bool allOnes(const std::vector<std::string>& dims) {
  return std::all_of(dims.begin(), dims.end(), [](const std::string& d) { return d == "1"; });
}

/// Names that cannot be symbols: functions, the names tiles expressions add, and a
/// Triton config's launch options.
void checkSymbolName(const Node& where, const std::string& name, const KernelSpec& k) {
  for (const char* f : kFunctionNames)
    if (name == f) where.fail("'" + name + "' is a function name and cannot be a symbol");
  for (const char* t : kTileNames)
    if (name == t) where.fail("'" + name + "' is reserved for tiles expressions");
  if (isTritonOption(k, name))
    where.fail("'" + name + "' is a launch option of a Triton kernel: set kernel." + name);
}

SymbolCheck baseSymbols(const Config& c) {
  SymbolCheck s;
  for (const auto& [name, v] : c.kernel.defines) (v.isInt ? s.names : s.stringDefines).insert(name);
  for (const auto& [name, v] : c.params) s.names.insert(name);
  if (c.kernel.isTriton())
    for (const char* o : kTritonOptionNames) s.names.insert(o);
  return s;
}

}  // namespace

// ---------------------------------------------------------------- tensors and tiles

template <class IO, Is<TensorSpec> S>
void fields(IO& io, S& t) {
  if constexpr (IO::reading)
    io.check([&](const Node& n, ReadContext& ctx) {
      if (ctx.base.names.count(t.name) || ctx.base.stringDefines.count(t.name))
        n.fail("tensor name '" + clipForMessage(t.name) +
               "' is also a define or param; args could not tell them apart");
      t.seed = stableNameHash(t.name);
    });
  const auto likeShape = [&t](const Node& n, const std::vector<std::string>& list, ReadContext&) {
    if (list.size() != t.shape.size())
      n.fail("has " + count(list.size()) + " entries but shape has " + count(t.shape.size()));
  };
  io("dtype", t.dtype, Opt{.required = true});
  io("shape", exprs(t.shape), Opt{.required = true});
  io("strides", exprs(t.strides, likeShape), Opt{.skip = t.strides.empty()});
  io("init", t.init, Opt{.skip = t.init.empty()}, checkInit);
  io("seed", t.seed, Opt{.skip = t.seed == stableNameHash(t.name)}, nonNegative);
  io("scale", t.scale, Opt{.skip = t.scale == 1.0});
  io("output", t.output, Opt{.skip = !t.output});
  io("expected", t.expected, Opt{.skip = t.expected.empty()}, [&t](const Node& n, ReadContext& ctx) {
    if (!t.output) n.fail("only an output tensor (\"output\": true) may have an expected result");
    const std::string e = n.str();
    if (e.rfind("npy:", 0) != 0) n.fail("expected \"npy:PATH\", found \"" + clipForMessage(e) + "\"");
    checkNpyRef(n, e, ctx.config->dir);
  });
}

template <class IO, Is<TileSpec> S>
void fields(IO& io, S& t) {
  if constexpr (IO::reading)
    io.check([&](const Node& n, ReadContext& ctx) {
      const TensorSpec* spec = ctx.config->tensor(t.tensor);
      if (!spec) n.fail("unknown tensor '" + clipForMessage(t.tensor) + "'");
      if (!spec->output)
        n.fail("tensor '" + clipForMessage(t.tensor) + "' is not an output; tiles are declared for outputs");
    });
  const auto rank = [&t](const Node& n, const std::vector<std::string>& list, ReadContext& ctx) {
    const std::size_t r = ctx.config->tensor(t.tensor)->shape.size();
    if (list.size() != r)
      n.fail("has " + count(list.size()) + " entries but tensor '" + t.tensor + "' has rank " + count(r) +
             " (declare every dimension)");
  };
  io("tile", exprs(t.tile, rank), Opt{.required = true});
  io("origin", exprs(t.origin, rank), Opt{.required = true});
}

// ---------------------------------------------------------------- kernels and launches

/// The keys of a CUDA kernel: `kernel`'s and a reference kernel's (in `reference`).
template <class IO, class S>
void cudaKernelFields(IO& io, S& k, bool isReference) {
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) {
      // A .py source without a language is a Triton kernel missing its language: say
      // that before its Triton keys are reported as unknown.
      if (!isReference && io.has(k.source) && io.at(k.source).j.is_string()) {
        const std::string src = io.at(k.source).str();
        if (src.size() > 3 && src.compare(src.size() - 3, 3, ".py") == 0)
          parseSource(io.at(k.source), ctx.config->dir, k);
      }
    });
  io("source", k.source, Opt{.required = true});
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) {
      k.baseDir = ctx.config->dir;
      parseSource(io.at(k.source), ctx.config->dir, k);
    });
  io("entry", k.entry, Opt{.required = true}, nonEmptyName);
  io("compiler", k.compiler, Opt{.skip = k.compiler == "nvrtc"}, checkCompiler);
  io("options", k.options, Opt{.skip = k.options.empty()});
  io("defines", defines(k.defines, false), Opt{.skip = k.defines.empty(), .point = true});
}

/// A Triton or TileLang kernel: a .py source, constexprs and (Triton) launch options.
template <class IO, class S>
void pythonKernelFields(IO& io, S& k) {
  const bool tilelang = k.language == "tilelang";
  io.checkKeys();
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext&) {
      if (tilelang && !pythonHasModule("tilelang"))
        io.at(k.language)
            .fail("TileLang is not installed for " + pythonInterpreter() +
                  " (pip install tilelang, or set TILESCOPE_PYTHON to an interpreter that has it); "
                  "TileLang's generated .cu can be opened as a CUDA kernel without it");
    });
  io("source", k.source, Opt{.required = true});
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) { parsePySource(io.at(k.source), ctx.config->dir, k); });
  io("entry", k.entry, Opt{.required = true}, nonEmptyName);
  if constexpr (IO::reading) io.check([&](const Node&, ReadContext&) { k.compiler = k.language; });
  io("constexprs", defines(k.defines, true), Opt{.skip = k.defines.empty(), .point = true});
  io(kNumWarps, k.numWarps, Opt{.skip = tilelang, .point = true}, tritonOption(kNumWarps));
  io(kNumStages, k.numStages, Opt{.skip = tilelang, .point = true}, tritonOption(kNumStages));
  io(kNumCtas, k.numCtas, Opt{.skip = tilelang || k.numCtas == 1, .point = true}, tritonOption(kNumCtas));
  if constexpr (IO::reading)
    io.check([&](const Node& n, ReadContext&) {
      if (tilelang)
        for (const char* key : kTritonOptionNames)
          if (n.has(key))
            n.at(key).fail("TileLang sets its own launch (T.Kernel threads=...); remove " + std::string(key));
    });
}

template <class IO, Is<KernelSpec> S>
void fields(IO& io, S& k) {
  io.first("language", k.language, Opt{.skip = k.language == "cuda"}, checkLanguage);
  if (k.isPython())
    pythonKernelFields(io, k);
  else
    cudaKernelFields(io, k, false);
}

template <class IO, class L>
void fields(IO& io, const LaunchOf<L>& of) {
  auto& l = of.launch;
  const KernelSpec& kernel = of.kernel;
  if (kernel.isPython()) {
    if constexpr (IO::reading)
      io.check([&](const Node& n, ReadContext&) {
        if (n.has("block"))
          n.at("block").fail(
              kernel.isTriton()
                  ? "a Triton kernel's block is 32·num_warps threads: set kernel.num_warps instead"
                  : "a TileLang kernel's block comes from its T.Kernel(threads=...)");
        if (n.has("shared_bytes"))
          n.at("shared_bytes")
              .fail("the shared memory of " +
                    std::string(kernel.isTriton() ? "a Triton kernel" : "a TileLang kernel") +
                    " comes from the compiled kernel; remove shared_bytes");
      });
    io("grid", exprs(l.grid, atMost3, true), Opt{.required = true});
    if constexpr (IO::reading)
      io.check([&](const Node&, ReadContext&) {
        // Triton launches 32·num_warps threads per program; TileLang's block is known once compiled.
        l.block = {kernel.isTriton() ? "32 * num_warps" : "1", "1", "1"};
        l.sharedBytes = "0";
      });
    return;
  }
  io("grid", exprs(l.grid, atMost3, true), Opt{.required = true});
  io("block", exprs(l.block, atMost3, true), Opt{.required = true});
  io("shared_bytes", expr(l.sharedBytes), Opt{.skip = l.sharedBytes == "0"});
  io("cluster", exprs(l.cluster, atMost3, true), Opt{.skip = allOnes(l.cluster)});
  io("shared_opt_in", l.sharedOptIn, Opt{.skip = !l.sharedOptIn});
}

// ---------------------------------------------------------------- bytes arguments

template <class IO, Is<ArgRelocation> S>
void fields(IO& io, S& r) {
  io("offset", r.offset, Opt{.required = true}, [](const Node& n, ReadContext& ctx) {
    const std::int64_t off = n.integer();
    const std::size_t size = ctx.bytesArg->bytes.size();
    if (off < 0 || std::uint64_t(off) + 8 > size)
      n.fail("an 8-byte pointer at offset " + std::to_string(off) + " does not fit in the " + count(size) +
             "-byte argument");
  });
  io("tensor", r.tensor, Opt{.required = true, .maxBytes = ConfigLimits::kMaxNameBytes},
     [](const Node& n, ReadContext& ctx) {
       const std::string name = n.str(ConfigLimits::kMaxNameBytes);
       if (!ctx.config->tensor(name)) n.fail("unknown tensor '" + clipForMessage(name) + "'");
     });
  io("delta", r.delta);
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) {
      for (const ArgRelocation& o : ctx.bytesArg->relocations)
        if (r.offset < o.offset + 8 && o.offset < r.offset + 8)
          io.at(r.offset).fail("overlaps the relocation at offset " + std::to_string(o.offset));
    });
}

/// `{"kind": "bytes", ...}`: an argument passed as its raw bytes (the other arguments are strings).
template <class IO, Is<ArgSpec> S>
void fields(IO& io, S& a) {
  std::string kind = "bytes";
  io("kind", kind, Opt{.required = true}, [](const Node& n, ReadContext&) {
    if (n.str() != "bytes")
      n.fail("unknown argument kind '" + clipForMessage(n.str()) + "' (expected bytes)");
  });
  if constexpr (IO::reading)
    io.check([&](const Node& n, ReadContext& ctx) {
      if (ctx.config->kernel.isPython())
        n.fail("a bytes argument is for CUDA kernels; a " + ctx.config->kernel.language +
               " kernel's arguments are tensors and scalars");
      a.isBytes = true;
      ctx.bytesArg = &a;
    });
  io("size", a.size, Opt{.skip = a.size == 0}, [](const Node& n, ReadContext&) {
    const std::int64_t size = n.integer();
    if (size < 1 || std::uint64_t(size) > kMaxKernelParamBytes)
      n.fail(std::to_string(size) + " bytes: a parameter has 1 to " + count(kMaxKernelParamBytes) + " (" +
             sizeLimitText() + ")");
  });
  if constexpr (IO::reading)
    io.check([&](const Node& n, ReadContext&) {
      if (io.has(a.bytes) == io.has(a.file))  // `hex` and `file`
        n.fail(io.has(a.bytes) ? "both `hex` and `file`: give the bytes once"
                               : "missing `hex` or `file` (the bytes)");
    });
  io("hex", hex(a.bytes), Opt{.skip = !a.file.empty()});
  io("file", a.file, Opt{.skip = a.file.empty()});
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) {
      if (io.has(a.file)) a.bytes = readBytesFile(io.at(a.file), ctx.config->dir);
      const Node where = io.has(a.bytes) ? io.at(a.bytes) : io.at(a.file);
      if (a.bytes.empty()) where.fail("no bytes: a parameter has at least one");
      if (a.bytes.size() > kMaxKernelParamBytes)
        where.fail(count(a.bytes.size()) + " bytes, above " + sizeLimitText());
      if (io.has(a.size) && a.size != a.bytes.size())
        io.at(a.size).fail("says " + count(a.size) + " bytes but the content has " + count(a.bytes.size()));
    });
  io("relocations", a.relocations, Opt{.skip = a.relocations.empty()});
  io("ambiguous", a.ambiguous, Opt{.skip = a.ambiguous.empty()}, each([&a](const Node& n, ReadContext&) {
       const std::int64_t off = n.integer();
       if (off < 0 || std::uint64_t(off) + 8 > a.bytes.size())
         n.fail("offset " + std::to_string(off) + " is not a word of the " + count(a.bytes.size()) +
                "-byte argument");
     }));
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) {
      a.text = "bytes(" + count(a.bytes.size()) + ")";
      ctx.bytesArg = nullptr;
    });
}

// ---------------------------------------------------------------- reference, baseline, tolerance, run

template <class IO, Is<ReferenceSpec> S>
void fields(IO& io, S& r) {
  io.first("op", r.op, Opt{.required = true});
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext&) {
      if (r.op != "gemm" && r.op != "sdpa" && r.op != "kernel" && r.op != "npy" && r.op != "none")
        io.at(r.op).fail("unknown reference op '" + clipForMessage(r.op) +
                         "' (expected gemm, sdpa, kernel, npy or none)");
    });
  if (r.op == "gemm") {
    io("a", r.a, Opt{.required = true}, tensorIn(false));
    io("b", r.b, Opt{.required = true}, tensorIn(false));
    io("out", r.out, Opt{.required = true}, tensorIn(true));
    io("trans_a", r.transA, Opt{.skip = !r.transA});
    io("trans_b", r.transB, Opt{.skip = !r.transB});
    io("alpha", r.alpha, Opt{.skip = r.alpha == 1.0});
    io("beta", r.beta, Opt{.skip = r.beta == 0.0});
  } else if (r.op == "sdpa") {
    io("q", r.q, Opt{.required = true}, tensorIn(false));
    io("k", r.k, Opt{.required = true}, tensorIn(false));
    io("v", r.v, Opt{.required = true}, tensorIn(false));
    io("out", r.out, Opt{.required = true}, tensorIn(true));
    io("scale", r.scale, Opt{.skip = !r.scale.has_value()});
    io("causal", r.causal, Opt{.skip = !r.causal});
    io("layout", r.layout, Opt{.skip = r.layout == "bhsd"}, [](const Node& n, ReadContext&) {
      if (n.str() != "bhsd") n.fail("unsupported layout '" + n.str() + "' (expected bhsd)");
    });
  } else if (r.op == "kernel") {
    cudaKernelFields(io, r.kernel, true);
    if constexpr (IO::reading)
      io.check([&](const Node&, ReadContext& ctx) {
        // The reference kernel's own integer defines are symbols of its expressions too.
        ctx.own = ctx.base;
        for (const auto& [name, v] : r.kernel.defines)
          (v.isInt ? ctx.own.names : ctx.own.stringDefines).insert(name);
        ctx.symbols = &ctx.own;
      });
    io("args", r.args, Opt{.required = true});
    io("launch", launchOf(r.launch, r.kernel), Opt{.required = true});
    if constexpr (IO::reading) io.check([](const Node&, ReadContext& ctx) { ctx.symbols = &ctx.base; });
  } else if (r.op == "npy") {
    io.checkKeys();
    if constexpr (IO::reading)
      io.check([](const Node&, ReadContext& ctx) {
        for (const auto& t : ctx.config->tensors)
          if (t.output && t.expected.empty())
            throw ConfigError("tensors." + t.name + ".expected",
                              "missing: reference op 'npy' needs \"expected\": \"npy:PATH\" on every output");
      });
  }
}

/// The object form of `baseline` ({"command": ...}); a name is a string (readBaseline).
template <class IO, Is<BaselineSpec> S>
void fields(IO& io, S& b) {
  if constexpr (IO::reading) io.check([&](const Node&, ReadContext&) { b.kind = "command"; });
  io("command", b.command, Opt{.required = true}, [](const Node& n, ReadContext&) {
    if (n.str().empty()) n.fail("empty command");
  });
  io("parse", b.parse, Opt{.skip = b.parse == "json"}, [](const Node& n, ReadContext&) {
    if (n.str() != "json") n.fail("unsupported parse '" + n.str() + "' (expected json)");
  });
}

template <class IO, Is<Tolerance> S>
void fields(IO& io, S& t) {
  io("rtol", t.rtol, Opt{}, nonNegativeNumber);
  io("atol", t.atol, Opt{}, nonNegativeNumber);
}

template <class IO, Is<RunSettings> S>
void fields(IO& io, S& r) {
  io("timeout_s", r.timeoutS, Opt{.skip = r.timeoutS == 0}, positive);
  io("slow_factor", r.slowFactor, Opt{.skip = r.slowFactor == 1.5}, positive);
  io("time_budget_s", r.timeBudgetS, Opt{.skip = r.timeBudgetS == 2.0}, positive);
  io("min_reps", r.minReps, Opt{.skip = r.minReps == 10}, repetitions(1));
  io("max_reps", r.maxReps, Opt{.skip = r.maxReps == 1000}, repetitions(1));
  io("warmup", r.warmup, Opt{.skip = r.warmup == 3}, repetitions(0));
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext&) {
      if (r.maxReps < r.minReps)
        io.at(r.maxReps).fail("max_reps is below min_reps (" + std::to_string(r.minReps) + ")");
    });
  io("counters", counters(r), Opt{.skip = r.counters && r.counterSet.empty()});
  io("metrics", r.metrics, Opt{.skip = r.metrics.empty(), .anyLength = true}, each(checkMetricName));
}

// ---------------------------------------------------------------- the document

namespace {

/// The hooks of the top level between its sections (reader only).
void checkSchema(const Node& n, ReadContext& ctx) {
  const Config& c = *ctx.config;
  if (!hasField(n, c, c.schema))
    throw ConfigError(fieldKey(c, c.schema), "missing (expected \"" + std::string(kConfigSchema) + "\")");
  const Node schema = fieldNode(n, c, c.schema);
  if (!schema.j.is_string() || schema.j.get<std::string>() != kConfigSchema)
    schema.fail("expected \"" + std::string(kConfigSchema) + "\", found " + schema.j.dump());
}

void checkDefineNames(const Node& n, ReadContext& ctx) {
  const Config& c = *ctx.config;
  if (c.kernel.defines.empty()) return;
  const Node defines = fieldNode(fieldNode(n, c, c.kernel), c.kernel, c.kernel.defines);
  for (const auto& [name, v] : c.kernel.defines) checkSymbolName(defines.at(name), name, c.kernel);
}

void startSymbols(const Node& n, ReadContext& ctx) {
  Config& c = *ctx.config;
  for (const auto& [name, v] : c.params) checkSymbolName(fieldNode(n, c, c.params).at(name), name, c.kernel);
  if (c.name.empty()) c.name = c.kernel.entry;
  ctx.base = baseSymbols(c);
  ctx.tiles = ctx.base;
  for (const char* t : kTileNames) ctx.tiles.names.insert(t);
  ctx.symbols = &ctx.base;
}

void sweepTrials(const Node& n, ReadContext& ctx) {
  const Config& c = *ctx.config;
  // sweep.trials is no field of a list: readSweep passes over it.
  if (!hasField(n, c, c.sweep) || !fieldNode(n, c, c.sweep).has("trials")) return;
  const Node trials = fieldNode(n, c, c.sweep).at("trials");
  if (hasField(n, c, c.trials)) trials.fail("trials is also given at the top level; give it once");
  checkTrials(trials, ctx);
  ctx.config->trials = static_cast<int>(trials.integer());
  ctx.trialsPath = "sweep.trials";
}

}  // namespace

template <class IO, Is<Config> S>
void fields(IO& io, S& c) {
  if constexpr (IO::reading) io.check(checkSchema);
  // Opt::point: what a sweep point or --set sets (configToJson writes it over the loaded
  // document). A point has no sweep; its trials are the sweep's (`sweep.trials`) once
  // that is gone, and a whole sweep's stay where its file gives them.
  io.first("schema", c.schema, Opt{.point = true});
  io("name", c.name, Opt{.skip = c.name.empty(), .maxBytes = ConfigLimits::kMaxNameBytes, .point = true});
  io("description", c.description,
     Opt{.skip = c.description.empty(), .maxBytes = ConfigLimits::kMaxTextBytes});
  io("kernel", c.kernel, Opt{.required = true, .point = true});
  if constexpr (IO::reading) io.check(checkDefineNames);
  io("params", c.params, Opt{.skip = c.params.empty(), .point = true});
  if constexpr (IO::reading) io.check(startSymbols);
  io("tensors", named(c.tensors, "no tensors declared"), Opt{.required = true});
  io("args", c.args, Opt{.required = true});
  io("launch", launchOf(c.launch, c.kernel), Opt{.required = true});
  if constexpr (IO::reading) io.check([](const Node&, ReadContext& ctx) { ctx.symbols = &ctx.tiles; });
  io("tiles", named(c.tiles), Opt{.skip = c.tiles.empty()});
  if constexpr (IO::reading) io.check([](const Node&, ReadContext& ctx) { ctx.symbols = &ctx.base; });
  io("reference", c.reference);
  io("baseline", c.baseline);
  // A draft leaves the tolerance to its default; a written config says it.
  io("tolerance", c.tolerance,
     Opt{.draftSkip = c.tolerance.rtol == Tolerance{}.rtol && c.tolerance.atol == Tolerance{}.atol});
  io("run", c.run, Opt{.omitEmpty = true});
  io("sweep", c.sweep, Opt{.skip = c.sweep.empty(), .omitEmpty = true, .point = c.sweep.empty()});
  if constexpr (IO::reading) io.check(sweepTrials);
  io("trials", c.trials, Opt{.skip = c.trials == 1, .point = c.sweep.empty()}, checkTrials);
  if constexpr (IO::reading)
    io.check([&](const Node&, ReadContext& ctx) { checkCaptureCount(c, c.trials, ctx.trialsPath); });
}

// ---------------------------------------------------------------- values of their own shape

void onlyKeys(const Node& n, const std::vector<const char*>& allowed) {
  n.needObject();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    bool known = false;
    for (const char* a : allowed) known = known || it.key() == a;
    if (known) continue;
    std::string list;
    for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
    throw ConfigError(jsonPathChild(n.path, it.key()), "unknown key (allowed here: " + list + ")");
  }
}

DType readDType(const Node& n) {
  const auto parsed = parseDType(n.str());
  if (!parsed)
    n.fail("unknown dtype '" + clipForMessage(n.str()) + "' (expected f32 f16 bf16 f64 i32 i64 u8 i8)");
  return *parsed;
}

void readParams(const Node& n, std::vector<std::pair<std::string, std::int64_t>>& out, ReadContext& ctx) {
  n.needObject();
  const KernelSpec& k = ctx.config->kernel;
  out.clear();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    const Node p = n.member(it);
    for (const auto& [name, value] : k.defines)
      if (name == it.key())
        p.fail("'" + name + "' is both a " +
               (k.isPython() ? "constexpr (kernel.constexprs)" : "define (kernel.defines)") + " and a param");
    out.emplace_back(it.key(), p.integer());
  }
}

void readArgs(const Node& n, std::vector<ArgSpec>& out, ReadContext& ctx) {
  n.needShortArray();
  out.clear();
  for (std::size_t i = 0; i < n.j.size(); ++i) {
    const Node a = n.at(i);
    if (a.j.is_object()) {
      ArgSpec bytes;
      readObject(a, bytes, ctx);
      out.push_back(std::move(bytes));
    } else {
      out.push_back(parseArg(a, *ctx.config, *ctx.symbols));
    }
  }
}

void readBaseline(const Node& n, BaselineSpec& out, ReadContext& ctx) {
  if (n.j.is_string()) {
    out.kind = n.str();
    const char* kinds[] = {"cublas", "sdpa", "sdpa_math", "none"};
    if (std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return out.kind == k; }))
      n.fail("unknown baseline '" + clipForMessage(out.kind) +
             "' (expected cublas, sdpa, sdpa_math, none or {\"command\": ...})");
    return;
  }
  if (!n.j.is_object())
    n.fail("expected a baseline name (cublas, sdpa, sdpa_math, none) or {\"command\": ...}, found " +
           jsonKind(n.j));
  readObject(n, out, ctx);
}

void readCounters(const Node& c, RunSettings& r) {
  // true / false, or the set by name (counters.h CounterSet).
  if (c.j.is_string()) {
    r.counterSet = c.str(16);
    if (r.counterSet != "basic" && r.counterSet != "full" && r.counterSet != "none")
      c.fail("expected true, false, \"basic\", \"full\" or \"none\"");
    r.counters = r.counterSet != "none";
  } else {
    r.counters = c.boolean();
  }
}

void readSweep(const Node& n, std::vector<SweepAxis>& out, ReadContext& ctx) {
  const Config& c = *ctx.config;
  n.needObject();
  out.clear();
  std::size_t points = 1;
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    if (it.key() == "trials") continue;  // sweepTrials
    const Node axis = n.member(it);
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
      axis.fail("the sweep has " + count(points) + " x " + count(axis.j.size()) +
                " points so far, over the limit of " + count(ConfigLimits::kMaxSweepPoints));
    points *= axis.j.size();
    SweepAxis s{it.key(), {}};
    for (std::size_t i = 0; i < axis.j.size(); ++i) {
      s.values.push_back(axis.at(i).integer());
      if (isOption) checkTritonOption(axis.at(i), it.key(), s.values.back());
    }
    out.push_back(std::move(s));
  }
}

Json toValue(const ArgSpec& a) {
  if (!a.isBytes) return a.integer && isDecimalInteger(a.text) ? Json(std::stoll(a.text)) : Json(a.text);
  Json j = Json::object();
  Writer w(j);
  fields(w, a);
  return j;
}

Json toValue(const BaselineSpec& b) {
  if (b.kind != "command") return b.kind;
  Json j = Json::object();
  Writer w(j);
  fields(w, b);
  return j;
}

Json toValue(const std::vector<SweepAxis>& sweep) {
  Json j = Json::object();
  for (const SweepAxis& axis : sweep) j[axis.name] = axis.values;
  return j;
}

Json draftDocument(const Config& config) {
  Json j = Json::object();
  Writer w(j, /*draft=*/true);
  fields(w, config);
  return j;
}

void writePointFields(const Config& config, Json& doc) {
  PointWriter w(doc);
  fields(w, config);
}

Config readConfigDocument(const Json& doc, const std::filesystem::path& dir) {
  const Node root{doc, ""};
  root.needObject();
  Config c;
  c.dir = dir;
  c.raw = std::make_shared<const nlohmann::json>(nlohmann::json::parse(doc.dump()));
  ReadContext ctx;
  ctx.config = &c;
  readObject(root, c, ctx);
  return c;
}

}  // namespace tilescope::detail

namespace tilescope {

nlohmann::ordered_json configDocument(const Config& config) {
  detail::Json j = detail::Json::object();
  detail::Writer w(j);
  detail::fields(w, config);
  return j;
}

}  // namespace tilescope
