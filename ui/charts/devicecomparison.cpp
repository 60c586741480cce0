#include "charts/devicecomparison.h"

#include <QCoreApplication>

#include "charts/unitticker.h"

namespace tilescope::ui {

const DeviceDb* defaultDeviceDb(QString* error) {
  static QString loadError;
  static const std::optional<DeviceDb> db = []() -> std::optional<DeviceDb> {
    try {
      return DeviceDb::loadDefault();
    } catch (const std::exception& e) {
      loadError = QString::fromStdString(e.what());
      return std::nullopt;
    }
  }();
  if (error) *error = loadError;
  return db ? &*db : nullptr;
}

KernelResources kernelResourcesOf(const Point& p) {
  KernelResources k;
  const auto& b = p.launch.block;
  k.threadsPerBlock = int(b[0] * b[1] * b[2]);
  if (k.threadsPerBlock <= 1 && p.occupancy.threadsPerBlock > 0)
    k.threadsPerBlock = p.occupancy.threadsPerBlock;
  if (p.timing.regs >= 0)
    k.regsPerThread = p.timing.regs;
  else if (p.compile.regs >= 0)
    k.regsPerThread = p.compile.regs;
  else if (p.occupancy.regsPerThread > 0)
    k.regsPerThread = p.occupancy.regsPerThread;
  k.smemStatic = p.compile.smemStatic >= 0 ? p.compile.smemStatic : 0;
  k.smemDynamic = p.launch.sharedBytes;
  return k;
}

SmLimits smLimitsOf(const DeviceSpec& spec) {
  SmLimits l;
  l.registers = spec.regsPerSm;
  l.sharedMemory = double(spec.smemPerSm);
  l.warps = spec.maxWarpsPerSm;
  l.blocks = spec.maxBlocksPerSm;
  return l;
}

const DeviceSpec* findDevice(const DeviceDb& db, const DeviceInfo& device) {
  if (!device.key.empty())
    if (const DeviceSpec* s = db.find(device.key)) return s;
  if (!device.name.empty()) return db.find(device.name);
  return nullptr;
}

QString smemFit(const DeviceSpec& spec, std::int64_t smemBytes) {
  if (smemBytes <= spec.smemPerBlock) return QStringLiteral("fits");
  if (smemBytes <= spec.smemPerBlockOptin) return QStringLiteral("needs opt-in");
  return QStringLiteral("exceeds %1").arg(formatBytes(double(spec.smemPerBlockOptin)));
}

QVector<DeviceOccupancy> compareDevices(const DeviceDb& db, const Report& r, const Point& p) {
  const KernelResources k = kernelResourcesOf(p);
  const DeviceSpec* mine = findDevice(db, r.device);
  QVector<DeviceOccupancy> rows;
  if (k.threadsPerBlock <= 0) return rows;
  for (const DeviceSpec& spec : db.all()) {
    const OccupancyResult o = computeOccupancy(spec, k);
    DeviceOccupancy d;
    d.device = QString::fromStdString(spec.key.empty() ? spec.name : spec.key).toUpper();
    d.key = QString::fromStdString(spec.key);
    d.occupancy = o.occupancy;
    d.limiter = o.problem.empty() ? limiterName(o.limiter) : QString::fromStdString(o.problem);
    d.blocksPerSm = o.blocksPerSm;
    d.smemFit = smemFit(spec, k.smemStatic + k.smemDynamic);
    d.current = &spec == mine;
    rows.append(d);
  }
  return rows;
}

}  // namespace tilescope::ui
