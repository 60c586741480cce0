#include "widgets/maskwidget.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "style/colors.h"

namespace tilescope::ui {

MaskWidget::MaskWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 160);
  setMouseTracking(true);
}

void MaskWidget::setGrid(std::shared_ptr<const CoverageGrid> grid) {
  m_grid = std::move(grid);
  update();
}

void MaskWidget::setTile(int tileRow, int tileCol) {
  m_tileRow = tileRow;
  m_tileCol = tileCol;
  update();
}

void MaskWidget::setEvidence(QList<OobEvidence> evidence) {
  m_evidence = std::move(evidence);
  update();
}

qint64 MaskWidget::inBoundsCount() const {
  if (!m_grid || m_tileRow < 0) return 0;
  return m_grid->tileElementsInBounds(m_tileRow, m_tileCol);
}

qint64 MaskWidget::maskedCount() const {
  if (!m_grid || m_tileRow < 0) return 0;
  return m_grid->tileRows() * m_grid->tileCols() - inBoundsCount();
}

qint64 MaskWidget::evidenceCount() const {
  if (!m_grid || m_tileRow < 0) return 0;
  const QRect tile(static_cast<int>(m_tileCol * m_grid->tileCols()),
                   static_cast<int>(m_tileRow * m_grid->tileRows()), static_cast<int>(m_grid->tileCols()),
                   static_cast<int>(m_grid->tileRows()));
  qint64 n = 0;
  for (const auto& e : m_evidence) {
    const QRect in = e.elements.intersected(tile);
    n += static_cast<qint64>(in.width()) * in.height();
  }
  return n;
}

QRectF MaskWidget::tileRectPx() const {
  // Square elements, the tile centred with a margin of 8 px.
  const double th = static_cast<double>(m_grid->tileRows()), tw = static_cast<double>(m_grid->tileCols());
  const double s = std::min((width() - 16) / tw, (height() - 16) / th);
  return QRectF((width() - s * tw) / 2, (height() - s * th) / 2, s * tw, s * th);
}

void MaskWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (!m_grid || !m_grid->valid() || m_tileRow < 0 || m_tileCol < 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    // Wrapped inside a margin: in the default layout's narrow dock one line was clipped at both ends.
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
               tr("Select a tile in the coverage view or the list"));
    return;
  }
  const QRectF area = tileRectPx();
  const qint64 th = m_grid->tileRows(), tw = m_grid->tileCols();
  const double s = area.width() / tw;
  const qint64 r0 = m_tileRow * th, c0 = m_tileCol * tw;
  // Large tiles: one rectangle per map cell run would be nicer; per element is
  // fine up to 256×256 (the largest tile a CTA owns in practice).
  const QBrush masked(palette().color(QPalette::Mid), Qt::BDiagPattern);
  for (qint64 r = 0; r < th; ++r) {
    for (qint64 c = 0; c < tw; ++c) {
      const QRectF cell(area.left() + c * s, area.top() + r * s, s, s);
      const bool in = m_grid->contains(r0 + r, c0 + c);
      if (in) {
        const int st = m_grid->stateAt(r0 + r, c0 + c);
        p.fillRect(cell, stateColor(st));
        if (stateHatch(st) != Qt::NoBrush) p.fillRect(cell, QBrush(stateHatchColor(st), stateHatch(st)));
      } else {
        p.fillRect(cell, masked);
      }
    }
  }
  // Out-of-bounds evidence, crossed out.
  for (const auto& e : m_evidence) {
    const QRect in = e.elements.intersected(
        QRect(static_cast<int>(c0), static_cast<int>(r0), static_cast<int>(tw), static_cast<int>(th)));
    if (in.isEmpty()) continue;
    // Filled in the out-of-bounds colour and crossed out: colour and glyph both say it.
    p.setPen(QPen(oobHatchColor(), std::max(1.0, s / 8)));
    for (int r = in.top(); r <= in.bottom(); ++r)
      for (int c = in.left(); c <= in.right(); ++c) {
        const QRectF cell(area.left() + (c - c0) * s, area.top() + (r - r0) * s, s, s);
        p.fillRect(cell, oobColor(e.write));
        p.drawLine(cell.topLeft(), cell.bottomRight());
        p.drawLine(cell.topRight(), cell.bottomLeft());
      }
  }
  // The tensor edge inside the tile.
  p.setPen(QPen(palette().color(QPalette::WindowText), 2));
  const double edgeX = std::min<double>(tw, static_cast<double>(m_grid->cols() - c0));
  const double edgeY = std::min<double>(th, static_cast<double>(m_grid->rows() - r0));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(area.topLeft(), QSizeF(edgeX * s, edgeY * s)));
  p.setPen(QPen(palette().color(QPalette::Mid), 1, Qt::DashLine));
  p.drawRect(area);
}

bool MaskWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_grid && m_tileRow >= 0) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QRectF area = tileRectPx();
    const double s = area.width() / m_grid->tileCols();
    const auto c = static_cast<qint64>(std::floor((help->pos().x() - area.left()) / s));
    const auto r = static_cast<qint64>(std::floor((help->pos().y() - area.top()) / s));
    if (r >= 0 && c >= 0 && r < m_grid->tileRows() && c < m_grid->tileCols()) {
      const qint64 er = m_tileRow * m_grid->tileRows() + r, ec = m_tileCol * m_grid->tileCols() + c;
      const QString text = m_grid->hoverText(er, ec);  // past the edge: masked, and any evidence there
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace tilescope::ui
