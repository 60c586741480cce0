// Draws a CoverageGrid: the tensor's measured state map at any zoom (wheel) and
// pan (drag), declared tile boundaries, the selected tile, a hover tooltip, and
// rulers with the row and column indices along the top and left edges.
// The declared tiles' part past the tensor's edge is drawn hatched, with the
// out-of-bounds evidence (oob_write / oob_read findings) on it in vermillion.
// Painting touches only the visible part: the state map is cached as a QImage of
// one pixel per map cell and scaled into place, so a 16384×16384 output costs the
// same per frame as a small one.
#pragma once

#include <QImage>
#include <QMargins>
#include <QPair>
#include <QPointF>
#include <QVector>
#include <QWidget>
#include <memory>

#include "widgets/coveragegrid.h"

namespace tilescope::ui {

class CoverageWidget : public QWidget {
  Q_OBJECT
 public:
  explicit CoverageWidget(QWidget* parent = nullptr);

  void setGrid(std::shared_ptr<const CoverageGrid> grid);
  const CoverageGrid* grid() const { return m_grid.get(); }
  void setSelectedTile(int tileRow, int tileCol);
  /// State (default) or the trace's measured writes / reads, coloured by CTA.
  void setLayer(CoverageLayer layer);
  CoverageLayer layer() const { return m_layer; }
  /// The layer drawn: state where the grid has no footprint.
  CoverageLayer effectiveLayer() const;
  /// The colour of a CTA in the footprint layers (light grey for -1, none).
  static QColor ctaColor(std::int64_t cta);

  /// Pixels per element.
  double scale() const { return m_scale; }
  /// The element coordinate (x = column, y = row) at the widget's top-left corner.
  QPointF origin() const { return m_origin; }
  void setView(double scale, QPointF origin);
  /// Widget position → element coordinate (fractional; floor for the element index).
  QPointF widgetToElement(QPointF pos) const;
  QPointF elementToWidget(QPointF elem) const;
  /// Zooms by `factor` keeping the element under `pos` fixed.
  void zoomAt(QPointF pos, double factor);
  /// Fits the whole tensor into the widget, clear of the rulers.
  void fitAll();
  /// Whether the view shows the whole drawn extent at the fitted scale (no zoom or pan since).
  bool isFitted() const { return m_fitted && m_autoFit; }
  /// The indices the rulers label: (pixel along the axis, index). Rows of a wrapped
  /// vector are labelled with the index they start at.
  QVector<QPair<int, qint64>> axisTicks(Qt::Orientation orientation) const;
  /// The room the rulers take at the left and the top.
  QMargins rulerMargins() const;
  /// Centres and zooms onto a tile.
  void showTile(int tileRow, int tileCol);
  /// Pixels per element at which whole elements become visible (gridlines per element).
  static constexpr double kElementGridScale = 8.0;
  static constexpr double kMaxScale = 64.0;

 signals:
  void tileClicked(int tileRow, int tileCol);
  void elementClicked(qint64 row, qint64 col);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  /// + / − zoom at the centre, the arrows pan by a tenth of the view, 0 or Home fits.
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void rebuildImage();
  double minScale() const;
  void clampOrigin();
  void drawTileLines(QPainter& p, const QRectF& visible);
  void drawOutside(QPainter& p);
  void drawHatches(QPainter& p, const QRect& cells, double cw, double ch);
  void drawOobTiles(QPainter& p);
  void drawRulers(QPainter& p);

  std::shared_ptr<const CoverageGrid> m_grid;
  QImage m_image;  ///< one pixel per map cell (view coordinates)
  CoverageLayer m_layer = CoverageLayer::state;
  double m_scale = 1.0;
  QPointF m_origin;
  bool m_fitted = false;
  bool m_autoFit = true;  ///< refit on resize until the user zooms or pans
  int m_selRow = -1, m_selCol = -1;
  QPoint m_pressPos, m_lastDrag;
  bool m_dragging = false;
};

}  // namespace tilescope::ui
