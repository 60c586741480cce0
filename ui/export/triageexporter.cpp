#include "export/triageexporter.h"

#include <QFileInfo>

#include "charts/chartplot.h"
#include "charts/triagecharts.h"
#include "export/documentwriters.h"
#include "tilescope/triage/triage_document.h"

namespace tilescope::ui {

namespace {

/// Exports are read on white paper whatever the desktop theme is (as exportfigures.cpp).
QImage renderOnPaper(const QString& title, int w, int h, const std::function<void(ChartPlot*)>& build) {
  ChartPlot plot;
  QPalette pal;
  pal.setColor(QPalette::Base, Qt::white);
  pal.setColor(QPalette::Window, Qt::white);
  pal.setColor(QPalette::Text, Qt::black);
  pal.setColor(QPalette::WindowText, Qt::black);
  plot.setPalette(pal);
  plot.resize(w, h);
  build(&plot);
  plot.setTitle(title);
  applyChartStyle(&plot, plot.colors());
  return plot.toPixmap(w, h).toImage();
}

}  // namespace

QVector<Figure> renderTriageFigures(const TriageReport& t) {
  QVector<Figure> out;
  for (const DocFigure& f : triageFigures(t)) {
    const QString title = QString::fromStdString(f.title);
    const int rows = static_cast<int>(taxonomyBars(t).size());
    if (f.id == "triage_taxonomy")
      out.push_back({QString::fromStdString(f.id), title,
                     renderOnPaper(title, 900, 120 + 34 * std::max(rows, 2),
                                   [&](ChartPlot* p) { plotTaxonomy(p, t); })});
    else if (f.id == "triage_speedups")
      out.push_back({QString::fromStdString(f.id), title,
                     renderOnPaper(title, 900, 380, [&](ChartPlot* p) { plotSpeedups(p, t); })});
  }
  return out;
}

bool exportTriage(const TriageReport& t, const QString& outPath, QString* error) {
  const DocumentWriter writer = writerFor(outPath, error);
  if (!writer) return false;
  return writer(buildTriageDocument(t), renderTriageFigures(t), outPath, error);
}

}  // namespace tilescope::ui
