// parallelChunks: runs a function over numbered chunks on a few std::threads.
// The chunks are fixed by the caller (their boundaries must not depend on the
// number of threads); what a chunk computes goes into per-chunk state that the
// caller merges in chunk order afterwards, so that results are the same for any
// number of threads (core/cuda's input initialisation and the output scan and
// comparison work this way).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace tilescope {

/// No call of parallelChunks runs more threads than this.
inline constexpr int kMaxParallelThreads = 16;

/// The threads to run `chunks` chunks on: `requested` when > 0 (tests and benches
/// force a count; it is honoured up to kMaxParallelThreads even past the
/// hardware's), else std::thread::hardware_concurrency(); never more than the
/// chunks, at least 1.
inline int parallelThreads(std::int64_t chunks, int requested = 0) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int t = std::min(requested > 0 ? requested : hw, kMaxParallelThreads);
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(t, chunks)));
}

/// Calls f(c) for every c in [0, chunks) on `threads` threads, the calling thread
/// one of them (threads <= 1: a plain loop on the calling thread). Each thread
/// takes the next chunk from a shared counter, so which thread runs a chunk varies
/// from run to run: f must write only to state of its own chunk (or combine into
/// shared state under its own lock, with operations whose order does not matter).
/// When f throws, no new chunk is started and, once every thread has stopped, the
/// exception of the lowest failing chunk is rethrown: the one the plain loop would
/// have thrown (chunks are taken in increasing order, so every chunk below a
/// failing one has run). When a thread cannot be started, the others do the work.
template <class F>
void parallelChunks(std::int64_t chunks, int threads, F&& f) {
  if (threads <= 1 || chunks <= 1) {
    for (std::int64_t c = 0; c < chunks; ++c) f(c);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  std::exception_ptr error;
  std::int64_t errorChunk = chunks;
  auto work = [&] {
    for (std::int64_t c; !failed.load(std::memory_order_relaxed) && (c = next.fetch_add(1)) < chunks;) {
      try {
        f(c);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(errorMutex);
        if (c < errorChunk) errorChunk = c, error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads - 1));
  for (int w = 1; w < threads; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: run on those started
    }
  }
  work();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tilescope
