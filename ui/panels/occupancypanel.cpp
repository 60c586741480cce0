#include "panels/occupancypanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include "charts/chartplot.h"
#include "charts/devicecomparison.h"
#include "charts/unitticker.h"

namespace tilescope::ui {

OccupancyPanel::OccupancyPanel(Selection* selection, QWidget* parent) : PointPanel(selection, parent) {
  setupLayout();
  rebuild();
}

void OccupancyPanel::setupLayout() {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  m_summary = new QLabel(content);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);

  m_resources = new ChartPlot(content);
  m_resources->setObjectName(QStringLiteral("occupancyResources"));
  layout->addWidget(m_resources, 1);

  auto* curves = new QHBoxLayout;
  static const char* const names[] = {"occupancyBlockSize", "occupancyRegisters", "occupancySharedMemory"};
  for (int i = 0; i < 3; ++i) {
    m_curves[i] = new ChartPlot(content);
    m_curves[i]->setObjectName(QString::fromLatin1(names[i]));
    curves->addWidget(m_curves[i]);
  }
  layout->addLayout(curves, 1);

  auto* devices = new QHBoxLayout;
  m_deviceTable = new QTableWidget(0, 5, content);
  m_deviceTable->setObjectName(QStringLiteral("occupancyDeviceTable"));
  m_deviceTable->setHorizontalHeaderLabels({QStringLiteral("Device"), QStringLiteral("Occupancy"),
                                            QStringLiteral("Blocks/SM"), QStringLiteral("Limiter"),
                                            QStringLiteral("Shared memory")});
  m_deviceTable->verticalHeader()->setVisible(false);
  m_deviceTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_deviceTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  devices->addWidget(m_deviceTable, 1);
  m_devices = new ChartPlot(content);
  m_devices->setObjectName(QStringLiteral("occupancyDevices"));
  devices->addWidget(m_devices, 1);
  layout->addLayout(devices, 1);

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setWidget(content);
  content->setMinimumHeight(760);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);

  for (ChartPlot* plot : {m_resources, m_curves[0], m_curves[1], m_curves[2], m_devices})
    connect(plot, &ChartPlot::paletteChanged, this, &OccupancyPanel::rebuild);
}

QString OccupancyPanel::summaryText() const { return m_summary->text(); }

void OccupancyPanel::rebuild() {
  for (ChartPlot* plot : {m_resources, m_curves[0], m_curves[1], m_curves[2], m_devices}) plot->clearChart();
  m_deviceTable->setRowCount(0);
  m_limiterLabel.clear();
  const bool valid = m_report && m_point >= 0 && m_point < int(m_report->points.size());
  if (!valid) {
    m_summary->setText(m_report ? tr("No point selected.") : tr("No report loaded."));
  } else {
    const Point& p = m_report->points[size_t(m_point)];
    const OccupancyInfo& occ = p.occupancy;
    QString dbError;
    const DeviceDb* db = defaultDeviceDb(&dbError);
    const DeviceSpec* spec = db ? findDevice(*db, m_report->device) : nullptr;
    const SmLimits limits = spec ? smLimitsOf(*spec) : smLimitsFromReport(m_report->device, occ);
    if (occ.computed) {
      m_summary->setText(
          tr("Theoretical occupancy %1 on %2: %3 of %4 warps per SM, %5 blocks/SM; "
             "limited by %6 (%7 threads, %8 registers/thread, %9 shared memory per block).")
              .arg(formatPercent(occ.theoretical), QString::fromStdString(m_report->device.name))
              .arg(occ.warpsPerSm)
              .arg(occ.maxWarpsPerSm)
              .arg(occ.blocksPerSm)
              .arg(limiterName(occ.limiter))
              .arg(occ.threadsPerBlock)
              .arg(occ.regsPerThread)
              .arg(formatBytes(double(occ.smemPerBlock))));
      m_limiterLabel = plotResourceBars(m_resources, occ, limits);
      m_resources->setTitle(tr("Per-SM resources"));
    } else {
      m_summary->setText(
          tr("The report holds no occupancy for this point (the kernel was not compiled or launched)."));
    }
    for (int i = 0; i < 3; ++i) plotOccupancyCurve(m_curves[i], occ, OccupancyCurve(i));
    m_curves[0]->setTitle(tr("vs block size"));
    m_curves[1]->setTitle(tr("vs registers"));
    m_curves[2]->setTitle(tr("vs shared memory"));
    if (db) {
      const auto rows = compareDevices(*db, *m_report, p);
      fillDeviceTable(rows);
      plotDeviceComparison(m_devices, rows);
      m_devices->setTitle(tr("Same configuration on other devices"));
    } else {
      m_devices->setTitle(tr("Device database unavailable: %1").arg(dbError));
    }
  }
  for (ChartPlot* plot : {m_resources, m_curves[0], m_curves[1], m_curves[2], m_devices}) {
    applyChartStyle(plot, plot->colors());
    plot->replot(QCustomPlot::rpQueuedRefresh);
  }
}

void OccupancyPanel::fillDeviceTable(const QVector<DeviceOccupancy>& rows) {
  m_deviceTable->setRowCount(int(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    const DeviceOccupancy& d = rows[i];
    const QStringList cells = {d.device, formatPercent(d.occupancy), QString::number(d.blocksPerSm),
                               d.limiter, d.smemFit};
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (d.current) {
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
      }
      m_deviceTable->setItem(i, col, item);
    }
  }
}

}  // namespace tilescope::ui
