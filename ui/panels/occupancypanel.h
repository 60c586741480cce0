// Occupancy of the selected point: per-SM resource bars with the limiter marked,
// the occupancy calculator's three curves with the current configuration marked,
// and the same configuration on the other devices of the database.
#pragma once

#include "charts/occupancycharts.h"
#include "panels/pointpanel.h"

class QLabel;
class QTableWidget;

namespace tilescope::ui {

class ChartPlot;

class OccupancyPanel : public PointPanel {
  Q_OBJECT
 public:
  explicit OccupancyPanel(Selection* selection, QWidget* parent = nullptr);

  // For tests and the exporter's checks.
  ChartPlot* resourcePlot() const { return m_resources; }
  ChartPlot* curvePlot(OccupancyCurve c) const { return m_curves[int(c)]; }
  ChartPlot* devicePlot() const { return m_devices; }
  QTableWidget* deviceTable() const { return m_deviceTable; }
  QString limiterLabel() const { return m_limiterLabel; }
  QString summaryText() const;

 private:
  void setupLayout();
  void rebuild() override;
  void fillDeviceTable(const QVector<DeviceOccupancy>& rows);

  QString m_limiterLabel;
  QLabel* m_summary = nullptr;
  ChartPlot* m_resources = nullptr;
  ChartPlot* m_curves[3] = {};
  ChartPlot* m_devices = nullptr;
  QTableWidget* m_deviceTable = nullptr;
};

}  // namespace tilescope::ui
