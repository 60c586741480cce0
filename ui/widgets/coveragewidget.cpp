#include "widgets/coveragewidget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "style/colors.h"

namespace tilescope::ui {

CoverageWidget::CoverageWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(200, 160);
  setFocusPolicy(Qt::StrongFocus);
}

void CoverageWidget::setGrid(std::shared_ptr<const CoverageGrid> grid) {
  const bool sameExtent = m_grid && grid && m_grid->rows() == grid->rows() && m_grid->cols() == grid->cols();
  m_grid = std::move(grid);
  rebuildImage();
  // Keep the view when switching points of one sweep with the same shape: the eye compares.
  if (!sameExtent) fitAll();
  update();
}

void CoverageWidget::rebuildImage() {
  m_image = QImage();
  if (!m_grid || !m_grid->valid()) return;
  const int h = m_grid->measured() ? static_cast<int>(std::ceil(m_grid->rows() / m_grid->cellRows())) : m_grid->tilesDown();
  const int w = m_grid->measured() ? static_cast<int>(std::ceil(m_grid->cols() / m_grid->cellCols())) : m_grid->tilesAcross();
  m_image = QImage(std::max(w, 1), std::max(h, 1), QImage::Format_RGB32);
  QRgb lut[256];
  for (int s = 0; s < 256; ++s) lut[s] = stateColor(s).rgb();
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
    for (int x = 0; x < w; ++x) {
      const int s = m_grid->measured() ? m_grid->mapCellState(y, x) : m_grid->tileState(y, x);
      line[x] = lut[s & 0xff];
    }
  }
}

void CoverageWidget::setSelectedTile(int tileRow, int tileCol) {
  if (m_selRow == tileRow && m_selCol == tileCol) return;
  m_selRow = tileRow;
  m_selCol = tileCol;
  update();
}

double CoverageWidget::minScale() const {
  if (!m_grid || !m_grid->valid() || width() <= 0 || height() <= 0) return 1e-6;
  return 0.5 * std::min(width() / static_cast<double>(m_grid->cols()), height() / static_cast<double>(m_grid->rows()));
}

void CoverageWidget::setView(double scale, QPointF origin) {
  m_scale = std::clamp(scale, minScale(), kMaxScale);
  m_origin = origin;
  clampOrigin();
  update();
}

void CoverageWidget::clampOrigin() {
  if (!m_grid || !m_grid->valid()) return;
  // Allow panning until half the widget is past the tensor's edge, not further.
  const double visW = width() / m_scale, visH = height() / m_scale;
  m_origin.setX(std::clamp(m_origin.x(), -visW / 2, std::max(-visW / 2, m_grid->cols() - visW / 2)));
  m_origin.setY(std::clamp(m_origin.y(), -visH / 2, std::max(-visH / 2, m_grid->rows() - visH / 2)));
}

QPointF CoverageWidget::widgetToElement(QPointF pos) const { return m_origin + pos / m_scale; }
QPointF CoverageWidget::elementToWidget(QPointF elem) const { return (elem - m_origin) * m_scale; }

void CoverageWidget::zoomAt(QPointF pos, double factor) {
  const QPointF anchor = widgetToElement(pos);
  const double s = std::clamp(m_scale * factor, minScale(), kMaxScale);
  m_scale = s;
  m_origin = anchor - pos / s;
  clampOrigin();
  update();
}

void CoverageWidget::fitAll() {
  if (!m_grid || !m_grid->valid() || width() <= 0) return;
  const double s = std::min(width() / static_cast<double>(m_grid->cols()), height() / static_cast<double>(m_grid->rows()));
  m_scale = std::clamp(s, 1e-6, kMaxScale);
  // Centre the tensor.
  m_origin = QPointF((m_grid->cols() - width() / m_scale) / 2, (m_grid->rows() - height() / m_scale) / 2);
  m_fitted = true;
  update();
}

void CoverageWidget::showTile(int tileRow, int tileCol) {
  if (!m_grid || !m_grid->valid() || tileRow < 0 || tileCol < 0) return;
  const double th = m_grid->tileRows(), tw = m_grid->tileCols();
  // Let the tile fill about a third of the view: enough context to see its neighbours.
  const double s = std::clamp(std::min(width() / (3 * tw), height() / (3 * th)), minScale(), kMaxScale);
  m_scale = s;
  const QPointF centre((tileCol + 0.5) * tw, (tileRow + 0.5) * th);
  m_origin = centre - QPointF(width() / 2.0, height() / 2.0) / s;
  clampOrigin();
  update();
}

void CoverageWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (!m_grid || !m_grid->valid() || m_image.isNull()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No coverage data for this point"));
    return;
  }
  // Visible element rectangle, clipped to the tensor.
  const QRectF visible = QRectF(m_origin, QSizeF(width() / m_scale, height() / m_scale))
                             .intersected(QRectF(0, 0, static_cast<double>(m_grid->cols()), static_cast<double>(m_grid->rows())));
  if (visible.isEmpty()) return;
  // Source rectangle in image pixels (cell units) and the target in widget pixels.
  const double cw = m_grid->measured() ? m_grid->cellCols() : static_cast<double>(m_grid->tileCols());
  const double ch = m_grid->measured() ? m_grid->cellRows() : static_cast<double>(m_grid->tileRows());
  const double x0 = std::floor(visible.left() / cw), y0 = std::floor(visible.top() / ch);
  const double x1 = std::min<double>(std::ceil(visible.right() / cw), m_image.width());
  const double y1 = std::min<double>(std::ceil(visible.bottom() / ch), m_image.height());
  const QRectF source(x0, y0, x1 - x0, y1 - y0);
  const QPointF tl = elementToWidget(QPointF(x0 * cw, y0 * ch));
  // Image pixels past the tensor edge (partial last cell) are cut by the clip.
  p.save();
  p.setClipRect(QRectF(elementToWidget(QPointF(0, 0)), elementToWidget(QPointF(m_grid->cols(), m_grid->rows()))));
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  const QPointF brFull = elementToWidget(QPointF(x1 * cw, y1 * ch));
  p.drawImage(QRectF(tl, brFull), m_image, source);
  p.restore();
  drawTileLines(p, visible);
  // Tensor outline.
  p.setPen(QPen(palette().color(QPalette::WindowText), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(elementToWidget(QPointF(0, 0)), elementToWidget(QPointF(m_grid->cols(), m_grid->rows()))));
}

void CoverageWidget::drawTileLines(QPainter& p, const QRectF& visible) {
  const double th = static_cast<double>(m_grid->tileRows()), tw = static_cast<double>(m_grid->tileCols());
  // Tile boundaries only when a tile is at least 6 px wide; otherwise lines would be all you see.
  if (tw * m_scale >= 6 && th * m_scale >= 6) {
    QColor c = palette().color(QPalette::Base);
    c.setAlpha(160);
    p.setPen(QPen(c, 1));
    for (double x = std::ceil(visible.left() / tw) * tw; x <= visible.right(); x += tw) {
      const double wx = elementToWidget(QPointF(x, 0)).x();
      p.drawLine(QPointF(wx, elementToWidget(QPointF(0, visible.top())).y()), QPointF(wx, elementToWidget(QPointF(0, visible.bottom())).y()));
    }
    for (double y = std::ceil(visible.top() / th) * th; y <= visible.bottom(); y += th) {
      const double wy = elementToWidget(QPointF(0, y)).y();
      p.drawLine(QPointF(elementToWidget(QPointF(visible.left(), 0)).x(), wy), QPointF(elementToWidget(QPointF(visible.right(), 0)).x(), wy));
    }
  }
  // Element grid when single elements are large enough to point at.
  if (m_scale >= kElementGridScale) {
    QColor c = palette().color(QPalette::Base);
    c.setAlpha(60);
    p.setPen(QPen(c, 1));
    for (double x = std::ceil(visible.left()); x <= visible.right(); x += 1) {
      const double wx = elementToWidget(QPointF(x, 0)).x();
      p.drawLine(QPointF(wx, 0), QPointF(wx, height()));
    }
    for (double y = std::ceil(visible.top()); y <= visible.bottom(); y += 1) {
      const double wy = elementToWidget(QPointF(0, y)).y();
      p.drawLine(QPointF(0, wy), QPointF(width(), wy));
    }
  }
  if (m_selRow >= 0 && m_selCol >= 0) {
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(elementToWidget(QPointF(m_selCol * tw, m_selRow * th)),
                      elementToWidget(QPointF((m_selCol + 1) * tw, (m_selRow + 1) * th))));
  }
}

void CoverageWidget::wheelEvent(QWheelEvent* event) {
  // One wheel notch (120 units) zooms by 1.25×.
  const double factor = std::pow(1.25, event->angleDelta().y() / 120.0);
  zoomAt(event->position(), factor);
  event->accept();
}

void CoverageWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_pressPos = m_lastDrag = event->position().toPoint();
    m_dragging = true;
  }
}

void CoverageWidget::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragging && (event->buttons() & Qt::LeftButton)) {
    const QPoint d = event->position().toPoint() - m_lastDrag;
    m_lastDrag = event->position().toPoint();
    m_origin -= QPointF(d) / m_scale;
    clampOrigin();
    update();
  }
}

void CoverageWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_dragging = false;
  // A click (not a drag) selects the tile under the cursor.
  if ((event->position().toPoint() - m_pressPos).manhattanLength() > 3 || !m_grid) return;
  const QPointF e = widgetToElement(event->position());
  const auto r = static_cast<qint64>(std::floor(e.y())), c = static_cast<qint64>(std::floor(e.x()));
  if (r < 0 || c < 0 || r >= m_grid->rows() || c >= m_grid->cols()) return;
  emit elementClicked(r, c);
  emit tileClicked(static_cast<int>(r / m_grid->tileRows()), static_cast<int>(c / m_grid->tileCols()));
}

void CoverageWidget::resizeEvent(QResizeEvent*) {
  if (!m_fitted) fitAll();
  else clampOrigin();
}

bool CoverageWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_grid) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QPointF e = widgetToElement(help->pos());
    const auto r = static_cast<qint64>(std::floor(e.y())), c = static_cast<qint64>(std::floor(e.x()));
    if (r >= 0 && c >= 0 && r < m_grid->rows() && c < m_grid->cols())
      QToolTip::showText(help->globalPos(), m_grid->hoverText(r, c), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace tilescope::ui
