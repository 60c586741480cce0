// The batch script, sbatch's command line and reading what sbatch, sacct and
// squeue print (slurm.h). The merge of the parts is in slurm_merge.cpp.
#include "tilescope/run/slurm.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tilescope/base/format.h"  // shellQuote

namespace tilescope {

std::string slurmScriptPath(const SlurmJob& job) { return job.dir + "/tilescope-sweep.sbatch"; }

std::string slurmPartPath(const std::string& dir, int task) {
  return dir + "/part-" + std::to_string(task) + ".json";
}

std::string slurmLogPath(const std::string& dir, const std::string& arrayJob, int task) {
  return dir + "/task-" + arrayJob + "_" + std::to_string(task) + ".out";
}

namespace {

std::string joinQuoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shellQuote(w);
  return out;
}

bool plainWord(const std::string& w) {
  static const std::string safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,@%+-";
  return !w.empty() && w.find_first_not_of(safe) == std::string::npos;
}

/// Text for a comment line of the script: a newline would end the comment and
/// make the rest a command (a config's name is anyone's data).
std::string commentSafe(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

/// The job's name: letters, digits, '.', '_', '-' (squeue and sacct print it in columns).
std::string jobName(const std::string& name) {
  std::string out = "tilescope-";
  for (char c : name.substr(0, 64))
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out;
}

}  // namespace

std::string slurmBatchScript(const SlurmJob& job) {
  const std::string n = std::to_string(job.shards);
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `tilescope-run sweep --slurm` for " << commentSafe(job.name) << ": array task K of " << n
    << " runs shard K of the\n"
    << "# sweep's points (contiguous blocks by point index, every trial of a point in one\n"
    << "# task) and writes its part report into this folder, which every node must see;\n"
    << "# the gatherer merges the parts into one sweep report. Submitted as\n"
    << "#   " << commentSafe(shellCommandLine(sbatchCommand(job, {}))) << "\n"
    << "# with --array naming the tasks (0-" << job.shards - 1 << ", then only those resubmitted).\n"
    << "set -u\n"
    << ": \"${SLURM_ARRAY_TASK_ID:?run this script as a job array: sbatch --array=0-" << job.shards - 1
    << "}\"\n"
    << "echo \"tilescope: shard ${SLURM_ARRAY_TASK_ID}/" << n
    << " on $(hostname) (job ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID})\" >&2\n"
    << "exec " << shellQuote(job.exe) << " sweep " << shellQuote(job.configPath)
    << " --shard \"${SLURM_ARRAY_TASK_ID}/" << n << "\" \\\n"
    << "  -o " << shellQuote(job.dir + "/part-") << "\"${SLURM_ARRAY_TASK_ID}\".json";
  if (!job.sweepArgs.empty()) s << " " << joinQuoted(job.sweepArgs);
  s << "\n";
  return s.str();
}

std::string shellCommandLine(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& w : argv) out += (out.empty() ? "" : " ") + (plainWord(w) ? w : shellQuote(w));
  return out;
}

std::vector<std::string> sbatchCommand(const SlurmJob& job, const std::vector<int>& tasks) {
  std::vector<std::string> argv = {
      "sbatch",
      "--parsable",
      "--array=" +
          (tasks.empty() ? std::string("0-") + std::to_string(job.shards - 1) : slurmArraySpec(tasks)),
      "--job-name=" + jobName(job.name),
      "--chdir=" + job.dir,
      "--output=" + job.dir + "/task-%A_%a.out"};
  argv.insert(argv.end(), job.sbatchOptions.begin(), job.sbatchOptions.end());
  argv.push_back(slurmScriptPath(job));
  return argv;
}

std::string slurmArraySpec(std::vector<int> tasks) {
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  std::string out;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(tasks[i]);
    if (j > i) out += "-" + std::to_string(tasks[j]);
    i = j + 1;
  }
  return out;
}

namespace {

int parseTaskNumber(const std::string& text, const std::string& spec) {
  int v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw std::invalid_argument("array task list '" + spec + "': '" + text + "' is not a task number");
  return v;
}

}  // namespace

std::vector<int> parseSlurmArraySpec(const std::string& spec) {
  std::string s = spec;
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  if (auto pct = s.find('%'); pct != std::string::npos) s.resize(pct);  // the throttle: tasks at once
  if (s.empty()) throw std::invalid_argument("array task list '" + spec + "' is empty");
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    if (dash == std::string::npos) {
      out.push_back(parseTaskNumber(part, spec));
      continue;
    }
    const int lo = parseTaskNumber(part.substr(0, dash), spec),
              hi = parseTaskNumber(part.substr(dash + 1), spec);
    // A step (":2") is not something sbatch --array=0-N prints back: refused above.
    if (hi < lo || hi - lo > 1000000)
      throw std::invalid_argument("array task list '" + spec + "': bad range " + part);
    for (int t = lo; t <= hi; ++t) out.push_back(t);
  }
  return out;
}

std::vector<std::string> splitShellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord) words.push_back(word), word.clear(), inWord = false;
    } else if (c == '\'') {
      const auto close = text.find('\'', i + 1);
      if (close == std::string::npos) throw std::invalid_argument("unclosed ' in \"" + text + "\"");
      word += text.substr(i + 1, close - i - 1);
      i = close, inWord = true;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        // Inside double quotes a backslash escapes only these.
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string("\"\\$`").find(text[j + 1]) != std::string::npos)
          ++j;
        word += text[j];
      }
      if (j >= text.size()) throw std::invalid_argument("unclosed \" in \"" + text + "\"");
      i = j, inWord = true;
    } else if (c == '\\') {
      if (i + 1 < text.size()) word += text[++i];
      inWord = true;
    } else {
      word += c, inWord = true;
    }
  }
  if (inWord) words.push_back(word);
  return words;
}

std::string sbatchOptionsProblem(const std::vector<std::string>& options) {
  // Ours: the array is one task per shard, the logs and parts are where the
  // gatherer looks, the job id is read from --parsable, the gatherer follows.
  static const std::vector<std::string> longOnes = {"--array", "--output", "--error", "--parsable",
                                                    "--wrap",  "--chdir",  "--wait",  "--test-only"};
  static const std::vector<std::string> shortOnes = {"-a", "-o", "-e", "-D", "-W"};
  for (const auto& o : options) {
    for (const auto& l : longOnes)
      if (o == l || o.rfind(l + "=", 0) == 0)
        return "--sbatch: " + l +
               " is set by tilescope-run sweep --slurm (one task per shard, logs in --slurm-dir)";
    for (const auto& s : shortOnes)
      if (o.rfind(s, 0) == 0)
        return "--sbatch: " + s +
               " is set by tilescope-run sweep --slurm (one task per shard, logs in --slurm-dir)";
  }
  return "";
}

std::string parseSbatchJobId(const std::string& output) {
  // --parsable prints "JOBID" or "JOBID;CLUSTER" on its last line (warnings may precede it).
  std::string last;
  std::stringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  std::string id = last.substr(0, last.find(';'));
  while (!id.empty() && (id.back() == '\r' || id.back() == ' ')) id.pop_back();
  const bool digits =
      !id.empty() && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw std::runtime_error("sbatch printed no job id: \"" + output.substr(0, 500) + "\"");
  return id;
}

namespace {

std::vector<std::string> splitBars(const std::string& line) {
  // squeue's --Format pads each column to its width: trim.
  auto trim = [](std::string f) {
    const auto b = f.find_first_not_of(" \t"), e = f.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
  };
  std::vector<std::string> out;
  std::string::size_type from = 0;
  for (;;) {
    const auto bar = line.find('|', from);
    out.push_back(trim(line.substr(from, bar == std::string::npos ? std::string::npos : bar - from)));
    if (bar == std::string::npos) break;
    from = bar + 1;
  }
  return out;
}

/// squeue's exit_code is the wait status (768 = exit 3; 15 = SIGTERM): as sacct
/// writes it, "EXIT:SIGNAL".
std::string exitCodeFromWaitStatus(const std::string& raw) {
  int v = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (raw.empty() || ec != std::errc() || end != raw.data() + raw.size() || v < 0) return "";
  return std::to_string((v >> 8) & 0xff) + ":" + std::to_string(v & 0x7f);
}

/// "123_4", "123_[5-7]" → the array job and its tasks; false for steps and other jobs.
bool readArrayJobId(const std::string& id, std::string& arrayJob, std::vector<int>& tasks) {
  const auto us = id.find('_');
  if (us == std::string::npos || us == 0 || id.find('.') != std::string::npos) return false;
  arrayJob = id.substr(0, us);
  if (!std::all_of(arrayJob.begin(), arrayJob.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  try {
    tasks = parseSlurmArraySpec(id.substr(us + 1));
  } catch (const std::invalid_argument&) {
    return false;
  }
  return true;
}

/// Reads "ID|STATE|..." lines; `rest` fills the other columns.
template <class Rest>
std::vector<SlurmTaskState> parseStateLines(const std::string& text, Rest rest) {
  std::map<std::pair<std::string, int>, SlurmTaskState> byTask;
  std::vector<std::pair<std::string, int>> order;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto cols = splitBars(line);
    if (cols.size() < 2) continue;
    std::string arrayJob;
    std::vector<int> tasks;
    if (!readArrayJobId(cols[0], arrayJob, tasks)) continue;
    std::string state = cols[1].substr(0, cols[1].find(' '));  // "CANCELLED by 0"
    if (state.empty()) continue;
    for (int t : tasks) {
      SlurmTaskState st{arrayJob, t, state, "", ""};
      rest(cols, st);
      const auto key = std::make_pair(arrayJob, t);
      if (!byTask.count(key)) order.push_back(key);
      byTask[key] = st;  // a task listed twice (requeued): the last line is the latest
    }
  }
  std::vector<SlurmTaskState> out;
  for (const auto& k : order) out.push_back(byTask[k]);
  return out;
}

}  // namespace

std::vector<SlurmTaskState> parseSacct(const std::string& text) {
  return parseStateLines(text, [](const std::vector<std::string>& cols, SlurmTaskState& st) {
    if (cols.size() > 2) st.exitCode = cols[2];
  });
}

std::vector<SlurmTaskState> parseSqueue(const std::string& text) {
  return parseStateLines(text, [](const std::vector<std::string>& cols, SlurmTaskState& st) {
    // A running task's exit_code is 0 too: only an ended one has one.
    if (cols.size() > 2 && slurmStateFinal(st.state)) st.exitCode = exitCodeFromWaitStatus(cols[2]);
    if (cols.size() > 3) st.reason = cols[3];
  });
}

std::vector<std::string> squeueCommand(const std::string& arrayJob) {
  // Explicit widths: --Format's default widths cut long array ids ("123_[5-999%8]").
  return {"squeue", "--noheader", "--states=all", "--jobs=" + arrayJob,
          "--Format=JobArrayID:80|,State:24|,exit_code:12|,Reason:80|"};
}

std::vector<std::string> sacctCommand(const std::string& arrayJob) {
  return {"sacct", "-X", "--parsable2", "--noheader", "-j", arrayJob, "--format=JobID,State,ExitCode"};
}

bool slurmStateFinal(const std::string& state) {
  static const std::set<std::string> final = {"COMPLETED", "FAILED",    "CANCELLED",     "TIMEOUT",
                                              "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL",
                                              "DEADLINE",  "REVOKED",   "SPECIAL_EXIT"};
  return final.count(state) > 0;
}

}  // namespace tilescope
