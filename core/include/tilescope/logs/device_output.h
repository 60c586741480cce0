// What a kernel printed: device printf output and failed device-side asserts.
// CUDA flushes device printf to the host's stdout when the host synchronises;
// the worker sends that file descriptor to a file of its own
// (app/run/cmd_worker.cpp), so that the stream stays clean and the text is kept
// with the point. Failed asserts are printed on stderr, which the parent keeps
// (worker_stderr) and reads here (session.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilescope/model/location.h"

namespace tilescope {

struct Point;

/// One "file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `cond` failed."
/// line, as CUDA's __assertfail prints it (Triton's tl.device_assert prints the same).
struct DeviceAssert {
  std::string file;
  int line = 0;
  std::string function;
  Index block, thread;
  std::string condition;
  bool operator==(const DeviceAssert&) const = default;
};

/// Every assert line of `text`, in order; other lines are ignored.
std::vector<DeviceAssert> parseDeviceAsserts(std::string_view text);

/// The most a point keeps of the device's output (the tail: the last lines
/// printed are nearest the failure).
inline constexpr std::size_t kMaxDeviceOutputBytes = 16 * 1024;

/// Gives the point's `device_assert` finding the first failed assert of `text`:
/// its location (file, line, function, block, thread), its condition and the
/// number of failing threads. CUDA prints assert lines on the process's stderr
/// (seen on an H100, CUDA 13.0), so the session calls this with the worker's
/// stderr. Returns whether a finding was located.
bool locateDeviceAssert(Point& p, std::string_view text);

/// Keeps `text`, what the kernel printed on stdout (device printf), as the
/// point's device output: its tail, invalid UTF-8 replaced. Assert lines in it
/// locate the finding too.
void applyDeviceOutput(Point& p, std::string_view text);

}  // namespace tilescope
