// File ▸ Compare with…: the open report (its selected point) as A, another
// report as B, in a CompareDialog of its own (made on first use).
#include <QFileDialog>
#include <QFileInfo>

#include "mainwindow.h"
#include "models/qtconv.h"
#include "panels/comparedialog.h"
#include "selection.h"
#include "tilescope/export/open_document.h"

namespace tilescope::ui {

bool MainWindow::compareWith(const QString& path, int pointB) {
  if (!m_report || m_report->points.empty()) {
    m_lastError = tr("Compare with: open a report with points first");
    showError(m_lastError);
    return false;
  }
  try {
    const OpenedDocument doc = openDocument(path.toStdString());
    if (doc.kind != DocumentKind::report)
      throw std::runtime_error(path.toStdString() + ": not a report (tilescope.report/1)");
    const int pointA =
        std::clamp(m_selection->state().point, 0, static_cast<int>(m_report->points.size()) - 1);
    const QString fileA = m_reportPath.isEmpty() ? tr("(this run)") : m_reportPath;
    const ReportDiff d = diffReports(*m_report, fileA.toStdString(), pointA, *doc.report, path.toStdString(),
                                     pointB < 0 ? defaultComparePoint(*doc.report) : pointB);
    if (!m_compareDialog) m_compareDialog = new CompareDialog(this);
    m_compareDialog->setDiff(d);
  } catch (const std::exception& e) {
    m_lastError = tr("Compare with %1 failed: %2").arg(QFileInfo(path).fileName(), qs(e.what()));
    showError(m_lastError);
    return false;
  }
  m_compareDialog->show();
  m_compareDialog->raise();
  return true;
}

void MainWindow::compareDialogAsked() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Compare with report"), QFileInfo(m_reportPath).path(), tr("Reports (*.json);;All files (*)"));
  if (!path.isEmpty()) compareWith(path);  // a failure shows in the message banner
}

}  // namespace tilescope::ui
