#include "controllers/configcheck.h"

#include <memory>
#include <stdexcept>

#include "models/qtconv.h"
#include "tilescope/analysis/locations.h"
#include "tilescope/analysis/static_analysis.h"
#include "tilescope/model/devices.h"

namespace tilescope::ui {

namespace {
const DeviceDb* deviceDb() {
  // Loaded once: the database is a resource file that does not change while the GUI runs.
  static const std::unique_ptr<DeviceDb> db = [] {
    try {
      return std::make_unique<DeviceDb>(DeviceDb::loadDefault());
    } catch (const std::exception&) {
      return std::unique_ptr<DeviceDb>();
    }
  }();
  return db.get();
}

bool isLaunchLimit(const Finding& f) {
  // What cudaLaunchKernel would refuse on this device: a config error before any GPU.
  return f.severity == Severity::error && (f.category == "invalid_launch" || f.category == "smem_exceeded" ||
                                           f.category == "too_many_resources");
}
}  // namespace

QStringList checkDeviceKeys() {
  QStringList out;
  if (const DeviceDb* db = deviceDb())
    for (const DeviceSpec& d : db->all()) out << qs(d.key);
  return out;
}

ConfigCheck checkConfig(const Config& cfg, const QString& deviceKey) {
  const DeviceDb* db = deviceDb();
  const DeviceSpec* dev = db ? db->find(deviceKey.toStdString()) : nullptr;
  if (!dev) throw std::runtime_error("unknown device '" + deviceKey.toStdString() + "'");
  auto report = std::make_shared<Report>();
  report->verb = "check";
  report->toolVersion = toolVersion();
  report->createdAt = nowIso8601();
  report->device = toDeviceInfo(*dev);
  report->config = configToJson(cfg);
  ConfigCheck out;
  int n = 0;
  for (const SweepPoint& sp : expandSweep(cfg)) {
    if (n++ >= kMaxCheckedPoints) break;
    Point p = analyzeStatic(sp.config, *dev, CompileInfo{});
    p.index = sp.index;
    p.label = sp.label();
    fillDefaultLocations(p, sp.config);
    p.verdict = verdictForFindings(p.findings);
    for (const Finding& f : p.findings)
      if (out.error.isEmpty() && isLaunchLimit(f)) {
        out.errorPath = qs(f.location.config.empty() ? std::string("launch") : f.location.config);
        out.error = QStringLiteral("%1: %2").arg(out.errorPath, qs(f.message));
      }
    report->points.push_back(std::move(p));
  }
  report->finalize();
  out.report = report;
  return out;
}

}  // namespace tilescope::ui
