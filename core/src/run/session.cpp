// A session: the points × trials of a config, each captured by a worker
// (worker_pool.cpp) on one of `jobs` threads, gathered into one report whose
// trials are then compared (trials.cpp).
#include "tilescope/run/session.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "tilescope/run/baseline.h"

namespace tilescope {

double defaultWorkerTimeout(const Config& config) {
  if (config.run.timeoutS > 0) return config.run.timeoutS;
  // compile (a cold NVRTC compile takes seconds), context creation, allocation,
  // kernel + baseline timing budgets, reference computation, copies.
  return 60.0 + 4.0 * config.run.timeBudgetS;
}

Config sessionConfig(const Config& config, const std::string& verb) {
  // The worker captures point 0 of the file: the report's config is that point's
  // (the sweep's first values), not the defines the sweep overrides.
  if (verb == "run" && !config.sweep.empty()) return expandSweep(config).front().config;
  return config;
}

Report runSession(const Config& file, const std::string& verb, const SessionOptions& opts) {
  const Config config = sessionConfig(file, verb);
  Report report;
  report.verb = verb;
  report.toolVersion = toolVersion();
  report.createdAt = nowIso8601();
  report.host = hostName();
  report.config = configToJson(config);

  std::vector<SweepPoint> points = expandSweep(config);
  if (opts.shard) {  // a shard of the sweep (shard.h): its block of points, every trial
    const auto [begin, end] = shardBounds(points.size(), *opts.shard);
    points = std::vector<SweepPoint>(points.begin() + static_cast<std::ptrdiff_t>(begin),
                                     points.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<int> indices;
    for (const auto& sp : points) indices.push_back(sp.index);
    report.run.shard = shardInfo(*opts.shard, indices);
  }
  struct Job {
    std::size_t point;
    int trial;
  };
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (int t = 0; t < std::max(1, opts.trials); ++t) jobs.push_back({i, t});

  std::vector<Point> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  DeviceInfo device;
  bool haveDevice = false;
  int workers = 0;  // processes started
  auto workerLoop = [&](int slot) {
    int gpu = opts.devices.empty() ? 0 : opts.devices[static_cast<std::size_t>(slot) % opts.devices.size()];
    WarmWorker warm;  // this slot's worker, while its points allow
    int fresh = 0;    // one-capture workers this slot started
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      DeviceInfo d;
      const SweepPoint& sp = points[jobs[j].point];
      Point p = opts.warmWorkers ? warm.capture(config, sp, jobs[j].trial, gpu, opts, &d)
                                 : runWorkerPoint(config, sp, jobs[j].trial, gpu, opts, &d);
      fresh += opts.warmWorkers ? 0 : 1;
      std::lock_guard<std::mutex> lock(mu);
      if (!haveDevice && !d.name.empty()) {
        device = d;
        haveDevice = true;
      }
      results[j] = std::move(p);
    }
    warm.release();  // its context's teardown overlaps the report's writing
    std::lock_guard<std::mutex> lock(mu);
    workers += warm.started() + fresh;
  };
  int nthreads = std::max(1, std::min<int>(opts.jobs, static_cast<int>(jobs.size())));
  std::vector<std::thread> threads;
  for (int s = 0; s < nthreads; ++s) threads.emplace_back(workerLoop, s);
  for (auto& t : threads) t.join();

  report.points = std::move(results);
  report.device = device;
  report.run.workers = WorkersInfo{opts.warmWorkers, workers};
  if (opts.allowCommands)  // where the workers ran: on the remote host, in the config's folder there
    applyCommandBaseline(report.points, config, 300, opts.remoteHost,
                         std::filesystem::path(opts.configPath).parent_path().string());
  summariseTrials(report, std::max(1, opts.trials));
  report.finalize();
  return report;
}

}  // namespace tilescope
