// The triage's failure classes in the seed's top-level taxonomy (docs/triage.md,
// "Failure classes"): the cause line of a Triton CompilationError, Python and
// torch exceptions, CUDA memory errors by kind, the limit that stopped a runner
// with what it had seen, and the classes in the triage file and its document.
#include <gtest/gtest.h>

#include <csignal>

#include "tilescope/base/format.h"
#include "tilescope/triage/triage_document.h"
#include "tilescope/triage/triage_run.h"

using nlohmann::json;
using namespace tilescope;

namespace {

/// What Triton 3 prints for a tl.arange with a run-time bound: the excerpt, the
/// caret, then the wrapped error's repr (code_generator.py raises it `from None`).
const char* const kArangeTraceback =
    "Traceback (most recent call last):\n"
    "  File \"/p/13_arange_new.py\", line 30, in forward\n"
    "    row_sum_kernel[grid](x, out, n, BLOCK=128)\n"
    "  File \"/venv/triton/runtime/jit.py\", line 419, in <lambda>\n"
    "triton.compiler.errors.CompilationError: at 11:15:\n"
    "def row_sum_kernel(X, OUT, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    cur_K = tl.minimum(n - pid * BLOCK, BLOCK)\n"
    "    offs = pid * BLOCK + tl.arange(0, cur_K)\n"
    "               ^\n"
    "ValueError(\"arange's arguments must be of type tl.constexpr\")\n";

const char* const kArangeMessage =
    "at 11:15:\ndef row_sum_kernel(X, OUT, n, BLOCK: tl.constexpr):\n    pid = tl.program_id(0)\n"
    "    offs = pid * BLOCK + tl.arange(0, cur_K)\n               ^\n"
    "ValueError(\"arange's arguments must be of type tl.constexpr\")";

json runnerWithException(const std::string& type, const std::string& message, const std::string& text) {
  return {{"schema", kRunnerSchema},
          {"status", "failed"},
          {"phase", "forward"},
          {"exception", {{"type", type}, {"message", message}, {"text", text}}}};
}

/// The lead finding of a runner's answer, with its class.
struct Classified {
  Finding lead;
  FailureClass cls;
};
Classified classify(const json& runner) {
  const std::vector<Finding> f = runnerFindings(runner);
  if (f.empty()) return {};
  return {f.front(), failureClass(f.front())};
}

std::string pythonTraceback(const std::string& last) {
  return "Traceback (most recent call last):\n  File \"/p/x_new.py\", line 12, in forward\n    y = f(x)\n" +
         last + "\n";
}

}  // namespace

TEST(TriageTaxonomy, ATritonCompilationErrorKeepsItsCauseLine) {
  const Classified c = classify(runnerWithException("CompilationError", kArangeMessage, kArangeTraceback));
  EXPECT_EQ(c.lead.category, "compile_error");
  EXPECT_EQ(c.cls, (FailureClass{"compile_error", "arange_constexpr"}));
  EXPECT_EQ(c.lead.message,
            "ValueError: arange's arguments must be of type tl.constexpr (CompilationError at 11:15)");
  // The runner died and only its stderr tells: the header line is all the message has.
  const Classified dead = classify(
      runnerWithException("Error", "triton.compiler.errors.CompilationError: at 11:15:", kArangeTraceback));
  EXPECT_EQ(dead.lead.message, c.lead.message);
  EXPECT_EQ(dead.cls, c.cls);
  // Raised `from` the callee's error: the outer block has no cause; the inner one does.
  const std::string chained =
      "triton.compiler.errors.CompilationError: at 2:4:\n    acc += tl.dot(a, b)\n    ^\n"
      "First input shape (['constexpr[128]', 'constexpr[32]']) and second input shape ['constexpr[128]', "
      "'constexpr[32]'] are not compatible for matmul (second index of first shape (32) must be equal to "
      "first "
      "index of second shape (128)\n\nThe above exception was the direct cause of the following "
      "exception:\n\n"
      "Traceback (most recent call last):\n  File \"/p/m_new.py\", line 40, in forward\n"
      "triton.compiler.errors.CompilationError: at 20:8:\n    matmul_inner(a_ptr, b_ptr)\n        ^\n";
  const Classified dot = classify(runnerWithException(
      "CompilationError", "at 20:8:\n    matmul_inner(a_ptr, b_ptr)\n        ^", chained));
  EXPECT_EQ(dot.cls, (FailureClass{"compile_error", "dot_shape_mismatch"}));
  EXPECT_EQ(dot.lead.message.rfind("First input shape", 0), 0u) << dot.lead.message;
  EXPECT_NE(dot.lead.message.find("(CompilationError at 20:8)"), std::string::npos) << dot.lead.message;
}

TEST(TriageTaxonomy, PythonAndTorchExceptionsTakeTheSeedsClasses) {
  const std::string shape =
      "The size of tensor a (128) must match the size of tensor b (64) at non-singleton dimension 1";
  const Classified rt =
      classify(runnerWithException("RuntimeError", shape, pythonTraceback("RuntimeError: " + shape)));
  EXPECT_EQ(rt.cls, (FailureClass{"runtime_error", "shape_mismatch"}));
  EXPECT_EQ(rt.lead.message, "RuntimeError: " + shape);

  const std::string dtype = "expected scalar type Half but found Float";
  EXPECT_EQ(
      classify(runnerWithException("RuntimeError", dtype, pythonTraceback("RuntimeError: " + dtype))).cls,
      (FailureClass{"runtime_error", "dtype_mismatch"}));
  const std::string oom =
      "CUDA out of memory. Tried to allocate 64.00 GiB. GPU 0 has a total capacity of 79.19 GiB";
  EXPECT_EQ(classify(runnerWithException("OutOfMemoryError", oom,
                                         pythonTraceback("torch.OutOfMemoryError: " + oom)))
                .cls,
            (FailureClass{"runtime_error", "out_of_memory"}));

  const Classified mod =
      classify(runnerWithException("ModuleNotFoundError", "No module named 'torchvision'",
                                   pythonTraceback("ModuleNotFoundError: No module named 'torchvision'")));
  EXPECT_EQ(mod.cls, (FailureClass{"missing_dependency", "module_not_found"}));
  EXPECT_EQ(mod.lead.message, "ModuleNotFoundError: No module named 'torchvision'");
  EXPECT_EQ(classify(runnerWithException(
                         "AttributeError", "module 'triton.language' has no attribute 'tanh'",
                         pythonTraceback("AttributeError: module 'triton.language' has no attribute 'tanh'")))
                .cls,
            (FailureClass{"missing_dependency", "module_attribute"}));

  const Classified as = classify(runnerWithException(
      "AssertionError", "x must be contiguous", pythonTraceback("AssertionError: x must be contiguous")));
  EXPECT_EQ(as.cls, (FailureClass{"assertion", "assert"}));
  EXPECT_EQ(as.lead.message, "AssertionError: x must be contiguous");

  const std::string missing = "forward() missing 1 required positional argument: 'y'";
  EXPECT_EQ(classify(runnerWithException("TypeError", missing, pythonTraceback("TypeError: " + missing))).cls,
            (FailureClass{"type_error", "missing_argument"}));
  EXPECT_EQ(
      classify(runnerWithException("ValueError", "too many values to unpack (expected 2)",
                                   pythonTraceback("ValueError: too many values to unpack (expected 2)")))
          .cls,
      (FailureClass{"value_error", "unpack"}));
  EXPECT_EQ(classify(runnerWithException("NameError", "name 'nn' is not defined",
                                         pythonTraceback("NameError: name 'nn' is not defined")))
                .cls,
            (FailureClass{"other_error", "name_error"}));
}

TEST(TriageTaxonomy, CudaMemoryErrorsByKind) {
  const std::string illegal =
      "CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously "
      "reported "
      "at some other API call, so the stacktrace below might be incorrect.";
  const Classified il = classify(runnerWithException("AcceleratorError", illegal,
                                                     pythonTraceback("torch.AcceleratorError: " + illegal)));
  EXPECT_EQ(il.cls, (FailureClass{"cuda_memory_error", "illegal_address"}));
  EXPECT_EQ(il.lead.message, "AcceleratorError: CUDA error: an illegal memory access was encountered");
  const std::string mis = "CUDA error: misaligned address";
  EXPECT_EQ(classify(runnerWithException("RuntimeError", mis, pythonTraceback("RuntimeError: " + mis))).cls,
            (FailureClass{"cuda_memory_error", "misaligned_address"}));
  Finding oob;
  oob.category = "oob_write";
  oob.message = "a guard byte of C changed";
  EXPECT_EQ(failureClass(oob), (FailureClass{"cuda_memory_error", "out_of_bounds_write"}));
  Finding gap;
  gap.category = "mismatch";
  EXPECT_EQ(failureClass(gap), (FailureClass{"wrong_result", "mismatch"}));
  EXPECT_EQ(failureClass(Finding{}), FailureClass{});
}

TEST(TriageTaxonomy, AnIntegrityFindingIsItsOwnClassWithThePatternAsSubclass) {
  // The runner's answer as traps.py writes it: category integrity, the pattern as detail.
  const json runner = {
      {"schema", kRunnerSchema},
      {"status", "failed"},
      {"findings", json::array({{{"category", "mismatch"}, {"severity", "error"}, {"message", "1 differs"}},
                                {{"category", "integrity"},
                                 {"severity", "error"},
                                 {"detail", "input_mutated"},
                                 {"message", "the forward changed 12 elements of input 0"}}})}};
  const Classified c = classify(runner);
  EXPECT_EQ(c.lead.category, "integrity");  // it explains the symptoms: it leads
  EXPECT_EQ(c.lead.treeNode, "wrong.integrity");
  EXPECT_EQ(c.cls, (FailureClass{"integrity", "input_mutated"}));
  Finding bare;
  bare.category = "integrity";
  EXPECT_EQ(failureClass(bare), (FailureClass{"integrity", "other"}));
  // The older traps keep their class; their detail names the pattern.
  Finding alias;
  alias.category = "output_is_input";
  alias.detail = "alias";
  EXPECT_EQ(failureClass(alias), (FailureClass{"wrong_result", "output_is_input"}));
}

TEST(TriageTaxonomy, ALimitThatStoppedTheRunnerIsNamedWithWhatItSaw) {
  const json limits = {{"max_cpu_s", 2400.0}, {"max_memory_bytes", 17179869184.0}, {"max_file_bytes", 1e9}};
  const json partial = {{"schema", kRunnerSchema},
                        {"status", "running"},
                        {"phase", "forward"},
                        {"cases", json::array({{{"label", "base seed 0"}, {"status", "ok"}}})}};
  ChildResult killed;
  killed.started = true;
  killed.signal = SIGKILL;
  killed.stderrText = "[runner] allocating the scaled case\n";
  const json dead = runnerWithoutAnswer(killed, limits, 600, "/p/x_new.py", partial);
  EXPECT_EQ(dead.value("phase", ""), "forward");
  EXPECT_EQ(dead["cases"].size(), 1u);  // what it had judged is kept
  const Classified k = classify(dead);
  EXPECT_EQ(k.lead.category, "crash");
  EXPECT_EQ(k.cls, (FailureClass{"resource_limit", "oom_killer"}));
  EXPECT_NE(k.lead.message.find("OOM killer"), std::string::npos) << k.lead.message;
  EXPECT_NE(k.lead.message.find("RLIMIT_DATA, " + formatBytes(17179869184.0)), std::string::npos)
      << k.lead.message;
  EXPECT_NE(k.lead.message.find("last progress: phase forward, 1 case judged"), std::string::npos)
      << k.lead.message;
  EXPECT_EQ(k.lead.evidence.value("last_output", ""), "[runner] allocating the scaled case");

  ChildResult hung;
  hung.started = true;
  hung.signal = SIGKILL;
  hung.timedOut = true;
  const Classified h = classify(runnerWithoutAnswer(hung, limits, 600, "/p/x_new.py", partial));
  EXPECT_EQ(h.lead.category, "hang");
  EXPECT_EQ(h.cls, (FailureClass{"resource_limit", "wall_clock_limit"}));
  EXPECT_NE(h.lead.message.find("within 600 s"), std::string::npos) << h.lead.message;
  EXPECT_NE(h.lead.message.find("last progress: phase forward"), std::string::npos) << h.lead.message;

  ChildResult cpu;
  cpu.started = true;
  cpu.signal = SIGXCPU;
  EXPECT_EQ(classify(runnerWithoutAnswer(cpu, limits, 600, "/p/x_new.py", json())).cls,
            (FailureClass{"resource_limit", "cpu_time_limit"}));
  // RLIMIT_DATA inside Python: a MemoryError the runner named (limits.py).
  json mem = runnerWithException("MemoryError",
                                 "the runner's memory limit (RLIMIT_DATA, 17179869184 bytes) was reached: ",
                                 pythonTraceback("MemoryError"));
  mem["exception"]["limit"] = "RLIMIT_DATA";
  EXPECT_EQ(classify(mem).cls, (FailureClass{"resource_limit", "memory_limit"}));
}

TEST(TriageTaxonomy, EntriesCarryTheirClassAndTheDocumentCountsThem) {
  TriageEntry e;
  e.id = e.name = "13_arange";
  e.kind = EntryKind::problem;
  e.inputs = {"r.py", "c.py"};
  e.findings = runnerFindings(runnerWithException("CompilationError", kArangeMessage, kArangeTraceback));
  summarizeReport(
      e, problemReport(e, runnerWithException("CompilationError", kArangeMessage, kArangeTraceback), nullptr),
      nullptr);
  EXPECT_EQ(e.errorClass, "compile_error");
  EXPECT_EQ(e.errorSubclass, "arange_constexpr");
  TriageReport r;
  r.entries = {e, e};
  r.entries[1].id = "ok";
  r.entries[1].category.clear();
  r.entries[1].errorClass.clear();
  r.entries[1].errorSubclass.clear();
  r.entries[1].verdict = Verdict::ok;
  TriageEntry old = e;  // an older file without the class: derived from category and detail
  old.id = "old";
  old.errorClass.clear();
  old.errorSubclass.clear();
  r.entries.push_back(old);
  const json j = toJson(r);
  EXPECT_EQ(j["entries"][0].value("error_class", ""), "compile_error");
  EXPECT_EQ(j["entries"][0].value("error_subclass", ""), "arange_constexpr");
  ASSERT_EQ(j["error_taxonomy"].size(), 3u);  // compile_error, its arange_constexpr, ok
  EXPECT_EQ(j["error_taxonomy"][0].value("category", ""), "compile_error");
  EXPECT_EQ(j["error_taxonomy"][0].value("count", 0), 2);  // e and old
  EXPECT_EQ(j["error_taxonomy"][1].value("detail", ""), "arange_constexpr");
  EXPECT_EQ(triageFromJson(j).entries[0], r.entries[0]);  // reads back
  const Document d = buildTriageDocument(r);
  const std::string md = renderMarkdown(d);
  EXPECT_NE(md.find("Failure classes"), std::string::npos);
  EXPECT_NE(md.find("arange\\_constexpr"), std::string::npos) << md;
}

// A mismatch the runner found, whose kernel was traced clean: the entry gets
// the kernel and the line of its busiest global store, and says where the line
// came from; a located finding or another category is left alone.
TEST(TriageSymptoms, AMismatchTakesTheTracedKernelsStoreLine) {
  TriageEntry e;
  Finding mismatch;
  mismatch.category = "mismatch";
  mismatch.severity = Severity::error;
  mismatch.message = "312 of 4096 elements differ";
  e.findings = {mismatch};
  e.category = "mismatch";
  Report traced;
  Point p;
  p.trace.status = "ok";
  p.trace.kernel = "matvec_kernel";
  TraceLine load, smallStore, store;
  load.file = "k.py", load.line = 12, load.read = true, load.accesses = 9000, load.spaces = {"global"};
  smallStore.file = "k.py", smallStore.line = 14, smallStore.write = true, smallStore.accesses = 32;
  smallStore.spaces = {"global"};
  store.file = "k.py", store.line = 19, store.write = true, store.accesses = 4096, store.spaces = {"global"};
  TraceLine shared = store;
  shared.line = 16, shared.accesses = 100000, shared.spaces = {"shared"};
  p.trace.lines = {load, smallStore, shared, store};
  traced.points = {p};

  TriageEntry none = e;
  Report untraced = traced;
  untraced.points[0].trace.status = "unavailable";
  EXPECT_FALSE(locateSymptom(none, untraced)) << "no trace, no line";
  EXPECT_FALSE(none.line);

  ASSERT_TRUE(locateSymptom(e, traced));
  ASSERT_TRUE(e.line);
  EXPECT_EQ(*e.line, 19) << "the busiest global store, not the shared one or the load";
  EXPECT_EQ(e.file, "k.py");
  EXPECT_EQ(e.findings[0].location.kernel, "matvec_kernel");
  EXPECT_NE(e.findings[0].evidence.value("line_from", "").find("2 storing lines"), std::string::npos)
      << e.findings[0].evidence.dump();
  EXPECT_FALSE(locateSymptom(e, traced)) << "a line already: nothing more to do";
  // The tables say the line is the store's, not a located bad access.
  EXPECT_EQ(entryLineLabel(e), "k.py:19 (store)");

  TriageEntry oob;
  Finding f;
  f.category = "oob_read";
  f.severity = Severity::error;
  oob.findings = {f};
  EXPECT_FALSE(locateSymptom(oob, traced)) << "a memory error is located by the trace itself";
  EXPECT_FALSE(oob.line);
  EXPECT_EQ(entryLineLabel(oob), "");
  oob.findings[0].location.line = 12;
  oob.file = "/abs/k.py", oob.line = 12;
  EXPECT_EQ(entryLineLabel(oob), "k.py:12");
}
