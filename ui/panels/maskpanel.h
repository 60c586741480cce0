// The mask view: one tile at element resolution (in-bounds vs masked elements of
// the declared tiling) with the measured out-of-bounds evidence laid on it, and
// the list of boundary tiles.
#pragma once

#include <QWidget>

#include "reportview.h"

class QListWidget;
class QLabel;

namespace tilescope::ui {

class MaskWidget;

class MaskPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit MaskPanel(Selection* selection, QWidget* parent = nullptr);

  MaskWidget* maskWidget() const { return m_mask; }
  QListWidget* boundaryList() const { return m_list; }
  QString infoText() const;

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 private:
  void showPoint(int point, const QString& tensor);
  void showTile(int tileRow, int tileCol);

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = -1;
  QString m_tensor;
  MaskWidget* m_mask;
  QListWidget* m_list;
  QLabel* m_info;
};

}  // namespace tilescope::ui
