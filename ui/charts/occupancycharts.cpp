#include "charts/occupancycharts.h"

#include <cmath>

#include "charts/qcp.h"

#include "charts/chartstyle.h"
#include "charts/unitticker.h"

namespace tilescope::ui {

namespace {

// Registers are allocated per warp in units of 256 (CC 5.0 .. 9.0), so a kernel
// using 33 registers/thread holds 33*32 rounded up to 1280 per warp.
double registersPerWarp(int regsPerThread) {
  const double perWarp = double(regsPerThread) * 32.0;
  return std::ceil(perWarp / 256.0) * 256.0;
}

ChartColors colorsOf(QCustomPlot* plot) { return chartColors(plot->palette()); }

/// A device limit, or `fallback` where the report does not know it (0).
double limitOr(int known, double fallback) { return known > 0 ? known : fallback; }

}  // namespace

QString limiterName(const std::string& limiter) {
  if (limiter == "shared_memory") return QStringLiteral("shared memory");
  if (limiter == "blocks") return QStringLiteral("block slots");
  return QString::fromStdString(limiter);
}

SmLimits smLimitsFromReport(const DeviceInfo& device, const OccupancyInfo& occ) {
  SmLimits l;
  l.registers = limitOr(device.regsPerSm, 65536);
  l.sharedMemory = double(device.smemPerSm);
  l.warps = limitOr(device.maxWarpsPerSm, occ.maxWarpsPerSm);
  // blocks_limit_slots is by definition the SM's block-slot limit.
  l.blocks = limitOr(device.maxBlocksPerSm, occ.blocksLimitSlots);
  return l;
}

QVector<ResourceUse> resourceUse(const OccupancyInfo& occ, const SmLimits& limits) {
  const int warpsPerBlock = (occ.threadsPerBlock + 31) / 32;
  const double blocks = occ.blocksPerSm;
  QVector<ResourceUse> out;
  out.append({QStringLiteral("registers"),
              QStringLiteral("Registers"),
              blocks * warpsPerBlock * registersPerWarp(occ.regsPerThread),
              limits.registers,
              {},
              {},
              occ.blocksLimitRegs});
  out.append({QStringLiteral("shared_memory"),
              QStringLiteral("Shared memory"),
              blocks * double(occ.smemPerBlock),
              limits.sharedMemory,
              {},
              {},
              occ.blocksLimitSmem});
  out.append({QStringLiteral("warps"),
              QStringLiteral("Warps"),
              blocks * warpsPerBlock,
              limits.warps,
              {},
              {},
              occ.blocksLimitWarps});
  out.append({QStringLiteral("blocks"),
              QStringLiteral("Block slots"),
              blocks,
              limits.blocks,
              {},
              {},
              occ.blocksLimitSlots});
  for (ResourceUse& r : out) {
    const bool bytes = r.key == QLatin1String("shared_memory");
    r.usedText = bytes ? formatBytes(r.used) : QString::number(qint64(r.used));
    r.limitText =
        r.limit > 0 ? (bytes ? formatBytes(r.limit) : QString::number(qint64(r.limit))) : QStringLiteral("?");
  }
  return out;
}

QString plotResourceBars(QCustomPlot* plot, const OccupancyInfo& occ, const SmLimits& limits) {
  const ChartColors c = colorsOf(plot);
  const QVector<ResourceUse> uses = resourceUse(occ, limits);
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  auto* normal = new QCPBars(plot->yAxis, plot->xAxis);
  auto* limiting = new QCPBars(plot->yAxis, plot->xAxis);
  normal->setName(QStringLiteral("used"));
  limiting->setName(QStringLiteral("limiter"));
  for (auto* bars : {normal, limiting}) bars->setWidth(0.6);
  normal->setPen(QPen(c.kernel));
  normal->setBrush(fillOf(c.kernel));
  limiting->setPen(QPen(c.warning));
  limiting->setBrush(fillOf(c.warning, 170));
  QString limiterLabel;
  for (int i = 0; i < uses.size(); ++i) {
    const ResourceUse& r = uses[i];
    const double key = uses.size() - i;  // first resource on top
    const double fraction = r.limit > 0 ? r.used / r.limit : 0;
    const bool isLimiter = occ.limiter == r.key.toStdString();
    (isLimiter ? limiting : normal)->addData(key, fraction);
    labels->addTick(key, r.name);
    auto* text = new QCPItemText(plot);
    text->position->setCoords(qMax(fraction, 0.0) + 0.02, key);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setColor(c.foreground);
    QString s = QStringLiteral("%1 / %2").arg(r.usedText, r.limitText);
    if (isLimiter) {
      limiterLabel =
          QStringLiteral("limiter: %1 (%2 blocks/SM)").arg(limiterName(occ.limiter)).arg(r.blocksAllowed);
      s += QStringLiteral("   ◀ ") + limiterLabel;
      text->setColor(c.warning);
    }
    text->setText(s);
  }
  if (limiterLabel.isEmpty() && !occ.limiter.empty())  // "threads": no bar of its own
    limiterLabel = QStringLiteral("limiter: %1").arg(limiterName(occ.limiter));
  plot->yAxis->setTicker(labels);
  plot->yAxis->setRange(0.4, uses.size() + 0.6);
  plot->xAxis->setTicker(percentTicker());
  plot->xAxis->setRange(0, 1.6);  // room for the labels right of the bars
  plot->xAxis->setLabel(QStringLiteral("share of one SM used by %1 resident blocks").arg(occ.blocksPerSm));
  return limiterLabel;
}

const char* curveKey(OccupancyCurve c) {
  switch (c) {
    case OccupancyCurve::BlockSize:
      return "block_size";
    case OccupancyCurve::Registers:
      return "registers";
    case OccupancyCurve::SharedMemory:
      return "shared_memory";
  }
  return "";
}

double currentX(const OccupancyInfo& occ, OccupancyCurve c) {
  switch (c) {
    case OccupancyCurve::BlockSize:
      return occ.threadsPerBlock;
    case OccupancyCurve::Registers:
      return occ.regsPerThread;
    case OccupancyCurve::SharedMemory:
      return double(occ.smemPerBlock);
  }
  return 0;
}

bool plotOccupancyCurve(QCustomPlot* plot, const OccupancyInfo& occ, OccupancyCurve which) {
  const ChartColors c = colorsOf(plot);
  static const char* const xLabels[] = {"threads per block", "registers per thread",
                                        "shared memory per block"};
  plot->xAxis->setLabel(QString::fromLatin1(xLabels[int(which)]));
  plot->yAxis->setLabel(QStringLiteral("occupancy"));
  plot->yAxis->setTicker(percentTicker());
  plot->yAxis->setRange(0, 1.08);
  if (which == OccupancyCurve::SharedMemory) plot->xAxis->setTicker(byteTicker());

  QVector<double> xs, ys;
  if (occ.curves) {
    const OccupancyCurves& c = *occ.curves;
    const std::vector<CurvePoint>& curve = which == OccupancyCurve::BlockSize   ? c.blockSize
                                           : which == OccupancyCurve::Registers ? c.registers
                                                                                : c.sharedMemory;
    for (const CurvePoint& pt : curve) {
      xs.append(static_cast<double>(pt.x));
      ys.append(pt.occupancy);
    }
  }
  auto* curve = plot->addGraph();
  curve->setName(QStringLiteral("occupancy"));
  curve->setLineStyle(QCPGraph::lsStepLeft);  // occupancy is constant between granularity steps
  curve->setPen(QPen(c.kernel, 2));
  curve->setData(xs, ys, true);

  auto* marker = plot->addGraph();
  marker->setName(QStringLiteral("current"));
  marker->setLineStyle(QCPGraph::lsNone);
  marker->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c.marker, c.marker, 10));
  const double x = currentX(occ, which);
  if (occ.computed) marker->addData(x, occ.theoretical);

  double xMax = x * 1.1;
  for (double v : xs) xMax = qMax(xMax, v);
  plot->xAxis->setRange(0, xMax > 0 ? xMax * 1.02 : 1);
  if (occ.computed) {
    auto* label = new QCPItemText(plot);
    label->position->setCoords(x, occ.theoretical);
    label->setPositionAlignment(x > xMax * 0.6 ? (Qt::AlignRight | Qt::AlignBottom)
                                               : (Qt::AlignLeft | Qt::AlignBottom));
    label->setPadding(QMargins(6, 0, 6, 4));
    label->setColor(c.marker);
    const QString xText = which == OccupancyCurve::SharedMemory ? formatBytes(x) : QString::number(qint64(x));
    label->setText(QStringLiteral("%1: %2").arg(xText, formatPercent(occ.theoretical)));
  }
  if (xs.isEmpty()) {
    auto* note = new QCPItemText(plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setColor(c.foreground);
    note->setText(QStringLiteral("no curve in this report"));
  }
  return !xs.isEmpty();
}

void plotDeviceComparison(QCustomPlot* plot, const QVector<DeviceOccupancy>& rows) {
  const ChartColors c = colorsOf(plot);
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  auto* others = new QCPBars(plot->xAxis, plot->yAxis);
  auto* current = new QCPBars(plot->xAxis, plot->yAxis);
  others->setName(QStringLiteral("other devices"));
  current->setName(QStringLiteral("report's device"));
  others->setPen(QPen(c.kernel));
  others->setBrush(fillOf(c.kernel));
  current->setPen(QPen(c.marker));
  current->setBrush(fillOf(c.marker, 170));
  for (int i = 0; i < rows.size(); ++i) {
    const DeviceOccupancy& d = rows[i];
    (d.current ? current : others)->addData(i + 1, d.occupancy);
    labels->addTick(i + 1, d.device);
    auto* text = new QCPItemText(plot);
    text->position->setCoords(i + 1, d.occupancy);
    text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    text->setColor(c.foreground);
    QString limiter = d.limiter;  // bars are narrow: short names
    limiter.replace(QStringLiteral("shared memory"), QStringLiteral("smem"));
    limiter.replace(QStringLiteral("registers"), QStringLiteral("regs"));
    text->setText(limiter.isEmpty() ? formatPercent(d.occupancy, 0)
                                    : QStringLiteral("%1\n%2").arg(formatPercent(d.occupancy, 0), limiter));
  }
  plot->xAxis->setTicker(labels);
  plot->xAxis->setTickLabelRotation(rows.size() > 4 ? 30 : 0);
  plot->xAxis->setRange(0.4, rows.size() + 0.6);
  plot->yAxis->setTicker(percentTicker());
  plot->yAxis->setRange(0, 1.25);
  plot->yAxis->setLabel(QStringLiteral("theoretical occupancy"));
}

}  // namespace tilescope::ui
