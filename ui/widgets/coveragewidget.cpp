#include "widgets/coveragewidget.h"

#include <QKeyEvent>

#include <QFontMetrics>
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
  // Low: the central column's minimum adds the banner's and the summary's lines to it,
  // and a first start (1251 x 726) must fit the window the docks leave.
  setMinimumSize(200, 100);
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

void CoverageWidget::setLayer(CoverageLayer layer) {
  m_layer = layer;
  rebuildImage();
  update();
}

CoverageLayer CoverageWidget::effectiveLayer() const {
  return m_grid && m_grid->hasFootprint() ? m_layer : CoverageLayer::state;
}

QColor CoverageWidget::ctaColor(std::int64_t cta) {
  // Neighbouring CTAs (linear ids one apart) get different Okabe–Ito hues; no writer is light grey.
  static const QColor hues[] = {QColor(0x00, 0x9e, 0x73), QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                                QColor(0xcc, 0x79, 0xa7), QColor(0x00, 0x72, 0xb2), QColor(0xf0, 0xe4, 0x42),
                                QColor(0xd5, 0x5e, 0x00)};
  return cta < 0 ? QColor(0xe6, 0xe6, 0xe6) : hues[cta % 7];
}

void CoverageWidget::rebuildImage() {
  m_image = QImage();
  if (!m_grid || !m_grid->valid()) return;
  const CoverageLayer layer = effectiveLayer();
  if (layer != CoverageLayer::state) {
    // The trace's footprint: one pixel per footprint cell, coloured by its lowest CTA.
    const int h = m_grid->footprintRows(), w = m_grid->footprintCols();
    m_image = QImage(w, h, QImage::Format_RGB32);
    for (int y = 0; y < h; ++y) {
      auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
      for (int x = 0; x < w; ++x)
        line[x] = ctaColor(m_grid->footprintCell(layer == CoverageLayer::writes, y, x).first).rgb();
    }
    return;
  }
  const int h = m_grid->measured() ? static_cast<int>(std::ceil(m_grid->rows() / m_grid->cellRows()))
                                   : m_grid->tilesDown();
  const int w = m_grid->measured() ? static_cast<int>(std::ceil(m_grid->cols() / m_grid->cellCols()))
                                   : m_grid->tilesAcross();
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
  return 0.5 * std::min(width() / static_cast<double>(m_grid->extentCols()),
                        height() / static_cast<double>(m_grid->extentRows()));
}

void CoverageWidget::setView(double scale, QPointF origin) {
  m_autoFit = false;
  m_scale = std::clamp(scale, minScale(), kMaxScale);
  m_origin = origin;
  clampOrigin();
  update();
}

void CoverageWidget::clampOrigin() {
  if (!m_grid || !m_grid->valid()) return;
  // Allow panning until half the widget is past the tensor's edge, not further.
  const double visW = width() / m_scale, visH = height() / m_scale;
  m_origin.setX(std::clamp(m_origin.x(), -visW / 2, std::max(-visW / 2, m_grid->extentCols() - visW / 2)));
  m_origin.setY(std::clamp(m_origin.y(), -visH / 2, std::max(-visH / 2, m_grid->extentRows() - visH / 2)));
}

QPointF CoverageWidget::widgetToElement(QPointF pos) const { return m_origin + pos / m_scale; }
QPointF CoverageWidget::elementToWidget(QPointF elem) const { return (elem - m_origin) * m_scale; }

void CoverageWidget::zoomAt(QPointF pos, double factor) {
  m_autoFit = false;
  const QPointF anchor = widgetToElement(pos);
  const double s = std::clamp(m_scale * factor, minScale(), kMaxScale);
  m_scale = s;
  m_origin = anchor - pos / s;
  clampOrigin();
  update();
}

void CoverageWidget::fitAll() {
  m_autoFit = true;  // a widget not laid out yet fits on its first resize
  if (!m_grid || !m_grid->valid() || width() <= 0 || height() <= 0) {
    m_fitted = false;
    return;
  }
  // The declared tiles reach past the tensor's edge: fit them, so a write into
  // their masked part is on screen from the start. Centred in what the rulers leave.
  const QMargins m = rulerMargins();
  const double w = std::max(1, width() - m.left()), h = std::max(1, height() - m.top());
  const double rows = static_cast<double>(m_grid->extentRows()),
               cols = static_cast<double>(m_grid->extentCols());
  const double s = std::min(w / cols, h / rows);
  m_scale = std::clamp(s, 1e-6, kMaxScale);
  m_origin =
      QPointF((cols - w / m_scale) / 2 - m.left() / m_scale, (rows - h / m_scale) / 2 - m.top() / m_scale);
  m_fitted = true;
  m_autoFit = true;
  update();
}

void CoverageWidget::showTile(int tileRow, int tileCol) {
  if (!m_grid || !m_grid->valid() || tileRow < 0 || tileCol < 0) return;
  m_autoFit = false;
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
                             .intersected(QRectF(0, 0, static_cast<double>(m_grid->cols()),
                                                 static_cast<double>(m_grid->rows())));
  if (visible.isEmpty()) return;
  // Source rectangle in image pixels (cell units) and the target in widget pixels.
  const bool footprint = effectiveLayer() != CoverageLayer::state;
  const double cw = footprint            ? m_grid->footprintCellCols()
                    : m_grid->measured() ? m_grid->cellCols()
                                         : static_cast<double>(m_grid->tileCols());
  const double ch = footprint            ? m_grid->footprintCellRows()
                    : m_grid->measured() ? m_grid->cellRows()
                                         : static_cast<double>(m_grid->tileRows());
  const double x0 = std::floor(visible.left() / cw), y0 = std::floor(visible.top() / ch);
  const double x1 = std::min<double>(std::ceil(visible.right() / cw), m_image.width());
  const double y1 = std::min<double>(std::ceil(visible.bottom() / ch), m_image.height());
  // Integer rectangles keep QPainter on its fast scaled-blit path (a fractional
  // target sends it through the general transform path). The last, partial cell
  // is drawn whole and cut at the tensor's edge by an integer clip.
  const QRect source(static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0),
                     static_cast<int>(y1 - y0));
  auto px = [](double v) { return static_cast<int>(std::lround(v)); };
  const QPointF tl = elementToWidget(QPointF(x0 * cw, y0 * ch));
  const QPointF br = elementToWidget(QPointF(x1 * cw, y1 * ch));
  const QPointF edge = elementToWidget(QPointF(m_grid->cols(), m_grid->rows()));
  const QRect target(QPoint(px(tl.x()), px(tl.y())), QPoint(px(br.x()) - 1, px(br.y()) - 1));
  p.save();
  p.setClipRect(QRect(QPoint(px(tl.x()), px(tl.y())), QPoint(px(edge.x()) - 1, px(edge.y()) - 1)));
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(target, m_image, source);
  drawHatches(p, source, cw, ch);
  p.restore();
  drawOutside(p);
  const QRectF visibleExtent = QRectF(m_origin, QSizeF(width() / m_scale, height() / m_scale))
                                   .intersected(QRectF(0, 0, static_cast<double>(m_grid->extentCols()),
                                                       static_cast<double>(m_grid->extentRows())));
  drawTileLines(p, visibleExtent);
  drawOobTiles(p);
  // Tensor outline.
  p.setPen(QPen(palette().color(QPalette::WindowText), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(
      QRectF(elementToWidget(QPointF(0, 0)), elementToWidget(QPointF(m_grid->cols(), m_grid->rows()))));
  drawRulers(p);
}

QMargins CoverageWidget::rulerMargins() const {
  if (!m_grid || !m_grid->valid()) return {};
  const QFontMetrics fm(font());
  const qint64 widest = m_grid->rowStartIndex(std::max<std::int64_t>(0, m_grid->extentRows() - 1));
  return QMargins(fm.horizontalAdvance(QString::number(widest)) + 10, fm.height() + 6, 0, 0);
}

namespace {
/// The smallest 1, 2 or 5 × 10^k at or above x: rulers count in round steps.
double niceStep(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(std::max(x, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= x) return m * p;
  return 10 * p;
}
}  // namespace

QVector<QPair<int, qint64>> CoverageWidget::axisTicks(Qt::Orientation o) const {
  QVector<QPair<int, qint64>> out;
  if (!m_grid || !m_grid->valid() || m_scale <= 0) return out;
  const QFontMetrics fm(font());
  const QMargins m = rulerMargins();
  const bool cols = o == Qt::Horizontal;
  const qint64 extent = cols ? m_grid->extentCols() : m_grid->extentRows();
  // Labels a little wider (across) or taller (down) than the widest one apart.
  const double minPx = cols ? fm.horizontalAdvance(QString::number(extent)) + 14 : fm.height() + 8;
  const double step = niceStep(minPx / m_scale);
  const double first = (cols ? m_origin.x() : m_origin.y()) + (cols ? m.left() : m.top()) / m_scale;
  const double last = (cols ? m_origin.x() + width() / m_scale : m_origin.y() + height() / m_scale);
  const double centre = m_scale >= kElementGridScale ? 0.5 : 0.0;  // large elements: the label at its middle
  for (double i = std::max(0.0, std::ceil(first / step) * step);
       i < std::min<double>(last, static_cast<double>(extent)); i += step) {
    const QPointF px = elementToWidget(cols ? QPointF(i + centre, 0) : QPointF(0, i + centre));
    const auto index = static_cast<qint64>(i);
    out.append(
        {static_cast<int>(std::lround(cols ? px.x() : px.y())), cols ? index : m_grid->rowStartIndex(index)});
  }
  return out;
}

void CoverageWidget::drawRulers(QPainter& p) {
  const QMargins m = rulerMargins();
  const QColor bg = palette().color(QPalette::Window), fg = palette().color(QPalette::WindowText);
  p.fillRect(QRect(0, 0, width(), m.top()), bg);
  p.fillRect(QRect(0, 0, m.left(), height()), bg);
  p.setPen(fg);
  const QFontMetrics fm(font());
  for (const auto& [x, index] : axisTicks(Qt::Horizontal)) {
    if (x < m.left()) continue;
    p.drawLine(x, m.top() - 4, x, m.top() - 1);
    const QString text = QString::number(index);
    p.drawText(QRect(x - 60, 0, 120, m.top() - 4), Qt::AlignHCenter | Qt::AlignBottom, text);
  }
  for (const auto& [y, index] : axisTicks(Qt::Vertical)) {
    if (y < m.top()) continue;
    p.drawLine(m.left() - 4, y, m.left() - 1, y);
    p.drawText(QRect(0, y - fm.height() / 2, m.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               QString::number(index));
  }
}

void CoverageWidget::drawHatches(QPainter& p, const QRect& cells, double cw, double ch) {
  // The second channel beside colour (style/colors.h, stateHatch): drawn once a
  // cell is large enough to carry a pattern (adjacent cells continue it), over at
  // most 40,000 visible cells.
  const double px = std::min(cw, ch) * m_scale;
  if (px < 1.5 || static_cast<qint64>(cells.width()) * cells.height() > 40000) return;
  const CoverageLayer layer = effectiveLayer();
  for (int y = cells.top(); y <= cells.bottom(); ++y)
    for (int x = cells.left(); x <= cells.right(); ++x) {
      if (layer != CoverageLayer::state) {
        // More than one CTA touched the cell: a measured overlap, hatched.
        const auto [lo, hi] = m_grid->footprintCell(layer == CoverageLayer::writes, y, x);
        if (lo != hi) {
          const QRectF r(elementToWidget(QPointF(x * cw, y * ch)),
                         elementToWidget(QPointF((x + 1) * cw, (y + 1) * ch)));
          p.fillRect(r, QBrush(QColor(0x1a, 0x1a, 0x1a), Qt::BDiagPattern));
        }
        continue;
      }
      const int s = m_grid->measured() ? m_grid->mapCellState(y, x) : m_grid->tileState(y, x);
      const Qt::BrushStyle hatch = stateHatch(s);
      if (hatch == Qt::NoBrush) continue;
      const QRectF r(elementToWidget(QPointF(x * cw, y * ch)),
                     elementToWidget(QPointF((x + 1) * cw, (y + 1) * ch)));
      p.fillRect(r, QBrush(stateHatchColor(s), hatch));
    }
}

void CoverageWidget::drawOutside(QPainter& p) {
  // The declared tiles' part past the tensor's edge: hatched (masked, a correct
  // kernel never touches it), and the out-of-bounds evidence on top of it.
  const QPointF edge = elementToWidget(QPointF(m_grid->cols(), m_grid->rows()));
  const QPointF far = elementToWidget(QPointF(m_grid->extentCols(), m_grid->extentRows()));
  const QPointF o = elementToWidget(QPointF(0, 0));
  const QBrush masked(palette().color(QPalette::Mid), Qt::BDiagPattern);
  if (far.x() > edge.x()) p.fillRect(QRectF(QPointF(edge.x(), o.y()), QPointF(far.x(), far.y())), masked);
  if (far.y() > edge.y())
    p.fillRect(QRectF(QPointF(o.x(), edge.y()), QPointF(std::min(edge.x(), far.x()), far.y())), masked);
  // A wrapped vector's last row past its end.
  if (const std::int64_t w = m_grid->wrapWidth(); w > 0) {
    const std::int64_t lastRow = m_grid->rows() - 1;
    std::int64_t inLast = 0;
    while (inLast < w && m_grid->contains(lastRow, inLast)) ++inLast;
    if (inLast < w)
      p.fillRect(QRectF(elementToWidget(QPointF(static_cast<double>(inLast), static_cast<double>(lastRow))),
                        elementToWidget(QPointF(static_cast<double>(w), static_cast<double>(lastRow + 1)))),
                 masked);
  }
  for (const OobRegion& r : m_grid->oobRegions()) {
    const QRectF box(
        elementToWidget(QPointF(static_cast<double>(r.col0), static_cast<double>(r.row0))),
        elementToWidget(QPointF(static_cast<double>(r.col1 + 1), static_cast<double>(r.row1 + 1))));
    if (!box.intersects(QRectF(rect()))) continue;
    // Colour and a cross-hatch: the second channel that survives colour blindness and greyscale.
    p.fillRect(box, oobColor(r.write));
    p.fillRect(box, QBrush(oobHatchColor(), r.write ? Qt::DiagCrossPattern : Qt::FDiagPattern));
  }
}

void CoverageWidget::drawOobTiles(QPainter& p) {
  // The tiles (CTAs) whose masked part the evidence lies in: outlined, so the
  // culprits read at a glance even when the stray elements are a sliver.
  const double th = static_cast<double>(m_grid->tileRows()), tw = static_cast<double>(m_grid->tileCols());
  for (bool write : {false, true}) {
    const auto tiles = m_grid->oobTiles(write);
    if (tiles.empty()) continue;
    p.setPen(QPen(oobColor(write), 2, write ? Qt::SolidLine : Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (const auto& [tr, tc] : tiles)
      p.drawRect(QRectF(elementToWidget(QPointF(tc * tw, tr * th)),
                        elementToWidget(QPointF((tc + 1) * tw, (tr + 1) * th))));
  }
}

void CoverageWidget::drawTileLines(QPainter& p, const QRectF& visible) {
  // Lines go out as one batch of integer lines with an opaque cosmetic pen: the
  // raster engine's fast path. A translucent or wide pen costs ~50 ms a frame here.
  const double th = static_cast<double>(m_grid->tileRows()), tw = static_cast<double>(m_grid->tileCols());
  const QRect bounds =
      QRectF(elementToWidget(visible.topLeft()), elementToWidget(visible.bottomRight())).toAlignedRect();
  auto gridLines = [&](double stepX, double stepY) {
    QVector<QLine> lines;
    for (double x = std::ceil(visible.left() / stepX) * stepX; x <= visible.right(); x += stepX) {
      const int wx = static_cast<int>(std::lround(elementToWidget(QPointF(x, 0)).x()));
      lines.append(QLine(wx, bounds.top(), wx, bounds.bottom()));
    }
    for (double y = std::ceil(visible.top() / stepY) * stepY; y <= visible.bottom(); y += stepY) {
      const int wy = static_cast<int>(std::lround(elementToWidget(QPointF(0, y)).y()));
      lines.append(QLine(bounds.left(), wy, bounds.right(), wy));
    }
    p.drawLines(lines);
  };
  const QColor base = palette().color(QPalette::Base), mid = palette().color(QPalette::Mid);
  // Element grid when single elements are large enough to point at.
  if (m_scale >= kElementGridScale) {
    p.setPen(QPen(mid, 0));
    gridLines(1.0, 1.0);
  }
  // Tile boundaries only when a tile is at least 6 px wide; otherwise lines would be all you see.
  if (tw * m_scale >= 6 && th * m_scale >= 6) {
    p.setPen(QPen(base, 0));
    gridLines(tw, th);
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

void CoverageWidget::keyPressEvent(QKeyEvent* event) {
  const QPointF centre(width() / 2.0, height() / 2.0);
  const double stepX = width() / 10.0 / m_scale, stepY = height() / 10.0 / m_scale;
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:  // "+" without Shift on most layouts
      zoomAt(centre, 1.25);
      return;
    case Qt::Key_Minus:
      zoomAt(centre, 1 / 1.25);
      return;
    case Qt::Key_0:
    case Qt::Key_Home:
      fitAll();
      return;
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down: {
      const int k = event->key();
      m_origin += QPointF(k == Qt::Key_Left    ? -stepX
                          : k == Qt::Key_Right ? stepX
                                               : 0,
                          k == Qt::Key_Up     ? -stepY
                          : k == Qt::Key_Down ? stepY
                                              : 0);
      m_autoFit = false;
      clampOrigin();
      update();
      return;
    }
    default:
      QWidget::keyPressEvent(event);
  }
}

void CoverageWidget::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragging && (event->buttons() & Qt::LeftButton)) {
    const QPoint d = event->position().toPoint() - m_lastDrag;
    m_lastDrag = event->position().toPoint();
    m_origin -= QPointF(d) / m_scale;
    if (!d.isNull()) m_autoFit = false;
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
  if (r < 0 || c < 0 || r >= m_grid->extentRows() || c >= m_grid->extentCols()) return;
  emit elementClicked(r, c);
  emit tileClicked(static_cast<int>(r / m_grid->tileRows()), static_cast<int>(c / m_grid->tileCols()));
}

void CoverageWidget::resizeEvent(QResizeEvent*) {
  // Until the user zooms or pans, the view follows the widget's size.
  if (!m_fitted || m_autoFit)
    fitAll();
  else
    clampOrigin();
}

bool CoverageWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_grid) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QPointF e = widgetToElement(help->pos());
    const auto r = static_cast<qint64>(std::floor(e.y())), c = static_cast<qint64>(std::floor(e.x()));
    if (r >= 0 && c >= 0 && r < m_grid->extentRows() && c < m_grid->extentCols())
      QToolTip::showText(help->globalPos(), m_grid->hoverText(r, c), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace tilescope::ui
