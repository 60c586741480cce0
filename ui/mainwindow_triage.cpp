// The main window's Triage view (docs/triage.md, "Workbench"): the dock and the room
// it takes while in front, opening a triage file, each row's report opened in the
// other views, and File ▸ Export Triage. Kept beside mainwindow.cpp so that the
// window's constructor stays short.
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>

#include "export/triageexporter.h"
#include "mainwindow.h"
#include "panels/triagepanel.h"
#include "widgets/banner.h"

namespace tilescope::ui {

namespace {
/// Shown and its tab current: a tab behind another is not hidden, only moved off the
/// window (QDockAreaLayoutInfo::apply), so isVisible() alone does not say.
bool inFront(const QDockWidget* d) { return d->isVisible() && !d->visibleRegion().isEmpty(); }
}  // namespace

void MainWindow::setupTriage() {
  m_triagePanel = new TriagePanel(this);
  QDockWidget* dock =
      addPanelDock(m_triagePanel, tr("Triage"), QStringLiteral("triageDock"), Qt::BottomDockWidgetArea);
  if (auto* findings = findChild<QDockWidget*>(QStringLiteral("findingsDock"))) {
    tabifyDockWidget(findings, dock);
    findings->raise();  // a tab added last comes to the front: a report's findings stay there
  }
  // A row opens its entry's report (setReport gives the room back); the triage stays
  // in its tab to pick the next.
  connect(m_triagePanel, &TriagePanel::reportRequested, this,
          [this](const QString& path) { openReport(path); });
  // Queued: the tab switch that shows or hides the dock is done before the docks move.
  connect(dock, &QDockWidget::visibilityChanged, this, &MainWindow::updateTriageRoom, Qt::QueuedConnection);
  connect(dock, &QDockWidget::topLevelChanged, this, &MainWindow::updateTriageRoom, Qt::QueuedConnection);
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
    d->raise();  // in front, it takes the room (updateTriageRoom)
    QTimer::singleShot(0, this, &MainWindow::updateTriageRoom);  // when it was in front already
  }
  addRecentFile(path);
  statusBar()->showMessage(tr("Triage %1: %2").arg(QFileInfo(path).fileName(), m_triagePanel->summaryText()),
                           15000);
  return true;
}

bool MainWindow::openTriage(const QString& path) { return openReport(path); }

// A triage is read as a main view (ncu-ui's summary page): while its tab is in front,
// the central column and the docks of the other areas give way, so that its area is
// the window and its table shows a screenful of entries with every column, its
// charts their labels apart. Another tab in front, the dock closed or floated, a
// report shown (an entry's, opened by a double click) or an error brings them back.
void MainWindow::updateTriageRoom() {
  auto* dock = findChild<QDockWidget*>(QStringLiteral("triageDock"));
  if (!dock || !isVisible() || m_changingRoom) return;  // a hidden window's docks are all hidden
  setTriageRoom(m_triagePanel->triage() && inFront(dock) && !dock->isFloating());
}

void MainWindow::setTriageRoom(bool room) {
  auto* dock = findChild<QDockWidget*>(QStringLiteral("triageDock"));
  if (!dock || room == m_triageRoom || m_changingRoom) return;
  m_changingRoom = true;
  m_triageRoom = room;
  const Qt::DockWidgetArea area = dockWidgetArea(dock);
  const Qt::Orientation across =
      area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea ? Qt::Horizontal : Qt::Vertical;
  if (room) {
    m_areaBeforeRoom = across == Qt::Vertical ? dock->height() : dock->width();
    m_gaveWay.clear();
    m_frontBeforeRoom.clear();
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
      if (d == dock || d->isHidden() || d->isFloating() || dockWidgetArea(d) == area) continue;
      m_gaveWay << d;
      if (inFront(d)) m_frontBeforeRoom << d;
    }
    for (QDockWidget* d : std::as_const(m_gaveWay)) d->hide();
    centralWidget()->hide();  // a hidden central widget leaves the docks the whole window
  } else {
    centralWidget()->show();
    for (QDockWidget* d : std::as_const(m_gaveWay))
      if (d) d->show();
    for (QDockWidget* d : std::as_const(m_frontBeforeRoom))
      if (d) d->raise();
    m_gaveWay.clear();
    m_frontBeforeRoom.clear();
    // The area its size again once the layout has the central column (before, the area is
    // all there is): now, for a saveState() that follows (closeEvent).
    layout()->activate();
    if (m_areaBeforeRoom > 0) resizeDocks({dock}, {m_areaBeforeRoom}, across);
  }
  m_changingRoom = false;
}

void MainWindow::leaveTriageRoom() {
  if (!m_triageRoom) return;
  setTriageRoom(false);
  // Another tab in front: a click on the Triage tab gives it the room again.
  auto* dock = findChild<QDockWidget*>(QStringLiteral("triageDock"));
  const QList<QDockWidget*> tabs = dock ? tabifiedDockWidgets(dock) : QList<QDockWidget*>{};
  if (tabs.isEmpty()) return;
  QDockWidget* front = tabs.first();
  if (auto* findings = findChild<QDockWidget*>(QStringLiteral("findingsDock")); tabs.contains(findings))
    front = findings;  // a report's findings first, as a report opens
  front->raise();
}

}  // namespace tilescope::ui
