// One declared tile at element resolution: in-bounds elements coloured by measured
// state, masked elements (past the tensor's edge, which a correct kernel must not
// touch) hatched, and the measured out-of-bounds accesses crossed out on top.
#pragma once

#include <QList>
#include <QRect>
#include <QWidget>
#include <memory>

#include "widgets/coveragegrid.h"

namespace tilescope::ui {

struct OobEvidence {
  QRect elements;     ///< element range (x = column, y = row), inclusive, may lie past the edge
  bool write = true;  ///< oob_write (else oob_read)
};

class MaskWidget : public QWidget {
  Q_OBJECT
 public:
  explicit MaskWidget(QWidget* parent = nullptr);

  void setGrid(std::shared_ptr<const CoverageGrid> grid);
  const CoverageGrid* grid() const { return m_grid.get(); }
  void setTile(int tileRow, int tileCol);
  void setEvidence(QList<OobEvidence> evidence);

  int tileRow() const { return m_tileRow; }
  int tileCol() const { return m_tileCol; }
  /// In-bounds and masked element counts of the shown tile.
  qint64 inBoundsCount() const;
  qint64 maskedCount() const;
  /// Elements of the shown tile that the OOB evidence marks.
  qint64 evidenceCount() const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRectF tileRectPx() const;

  std::shared_ptr<const CoverageGrid> m_grid;
  int m_tileRow = -1, m_tileCol = -1;
  QList<OobEvidence> m_evidence;
};

}  // namespace tilescope::ui
