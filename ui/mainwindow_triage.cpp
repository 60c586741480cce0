// The main window's Triage view (docs/triage.md, "Workbench"): the dock (the main
// area's room when a triage opens), opening a triage file, each row's report opened
// in the other views, and File ▸ Export Triage. Kept beside mainwindow.cpp so that the window's constructor
// stays short.
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>

#include "export/triageexporter.h"
#include "mainwindow.h"
#include "panels/triagepanel.h"
#include "widgets/banner.h"

namespace tilescope::ui {

void MainWindow::setupTriage() {
  m_triagePanel = new TriagePanel(this);
  QDockWidget* dock =
      addPanelDock(m_triagePanel, tr("Triage"), QStringLiteral("triageDock"), Qt::BottomDockWidgetArea);
  if (auto* findings = findChild<QDockWidget*>(QStringLiteral("findingsDock"))) {
    tabifyDockWidget(findings, dock);
    findings->raise();  // a tab added last comes to the front: a report's findings stay there
  }
  // A row opens its entry's report; the triage stays in its dock to pick the next.
  connect(m_triagePanel, &TriagePanel::reportRequested, this,
          [this](const QString& path) { openReport(path); });
  QMenu* file = menuBar()->actions().isEmpty() ? nullptr : menuBar()->actions().first()->menu();
  if (!file) return;
  QAction* exportTriage = new QAction(tr("Export &Triage…"), this);
  exportTriage->setObjectName(QStringLiteral("exportTriageAction"));
  exportTriage->setEnabled(false);
  file->insertAction(m_exportAction, exportTriage);
  connect(exportTriage, &QAction::triggered, this, [this] {
    const TriagePtr t = m_triagePanel->triage();
    if (!t) return;
    const QFileInfo fi(m_triagePanel->triagePath());
    QString filter;
    QString out = QFileDialog::getSaveFileName(
        this, tr("Export triage"), fi.dir().filePath(fi.completeBaseName() + QStringLiteral(".html")),
        tr("HTML (*.html);;PDF (*.pdf);;Markdown (*.md)"), &filter);
    if (out.isEmpty()) return;
    out = withExportExtension(out, filter);
    QString error;
    if (!tilescope::ui::exportTriage(*t, out, &error))
      showError(tr("Export to %1 failed: %2").arg(out, error));
    else
      statusBar()->showMessage(tr("Exported %1").arg(out), 5000);
  });
  connect(m_triagePanel->model(), &QAbstractItemModel::modelReset, exportTriage,
          [this, exportTriage] { exportTriage->setEnabled(m_triagePanel->triage() != nullptr); });
}

bool MainWindow::showTriage(const nlohmann::json& doc, const QString& path) {
  TriagePtr triage;
  try {
    triage = std::make_shared<const TriageReport>(triageFromJson(doc));
  } catch (const std::exception& e) {
    showError(path + QStringLiteral(": ") + QString::fromUtf8(e.what()));
    return false;
  }
  m_messageBanner->clearMessage();
  m_triagePanel->setTriage(triage, QFileInfo(path).absoluteFilePath());
  if (auto* d = findChild<QDockWidget*>(QStringLiteral("triageDock"))) {
    d->show();
    d->raise();
    // A triage is read as a main view: its area takes most of the window's height
    // (the bottom area is the window's width), the coverage view keeps a strip.
    QTimer::singleShot(0, this, [this, d] { resizeDocks({d}, {height() * 3 / 5}, Qt::Vertical); });
  }
  addRecentFile(path);
  statusBar()->showMessage(tr("Triage %1: %2").arg(QFileInfo(path).fileName(), m_triagePanel->summaryText()),
                           15000);
  return true;
}

bool MainWindow::openTriage(const QString& path) { return openReport(path); }

}  // namespace tilescope::ui
