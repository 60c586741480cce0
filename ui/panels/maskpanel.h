// The mask view: one tile at element resolution (in-bounds vs masked elements of
// the declared tiling) with the measured out-of-bounds evidence laid on it, and
// the list of boundary tiles.
#pragma once

#include "panels/pointpanel.h"

class QListWidget;
class QLabel;

namespace tilescope::ui {

class MaskWidget;

class MaskPanel : public PointPanel {
  Q_OBJECT
 public:
  explicit MaskPanel(Selection* selection, QWidget* parent = nullptr);

  MaskWidget* maskWidget() const { return m_mask; }
  QListWidget* boundaryList() const { return m_list; }
  QString infoText() const;

 private:
  void rebuild() override;
  void showPoint(const SelectionState& state) override;
  void showWithinPoint(const SelectionState& state) override;
  void showTile(int tileRow, int tileCol);

  QString m_tensor;
  MaskWidget* m_mask;
  QListWidget* m_list;
  QLabel* m_info;
};

}  // namespace tilescope::ui
