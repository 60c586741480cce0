// The workbench window: its panels, menus and docks, the views a report fills,
// the verdict banner and the status bar. Files, settings and export are in
// mainwindow_files.cpp; the Triage dock in mainwindow_triage.cpp.
#include "mainwindow.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QUrl>
#include <fstream>
#include <stdexcept>

#include <QVBoxLayout>

#include "controllers/checkcontroller.h"
#include "export/reportexporter.h"
#include "models/findingsmodel.h"
#include "models/qtconv.h"
#include "models/verdicttext.h"
#include "panels/capturedialog.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/findingspanel.h"
#include "panels/logpanel.h"
#include "panels/maskpanel.h"
#include "panels/occupancypanel.h"
#include "panels/runpanel.h"
#include "panels/sourcepanel.h"
#include "panels/speedoflightpanel.h"
#include "panels/timingpanel.h"
#include "panels/troubleshootpanel.h"
#include "tilescope/base/resources.h"
#include "tilescope/diagnose/headline.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/export/open_document.h"
#include "widgets/banner.h"
#include "widgets/fitcolumn.h"
#include "widgets/pointstable.h"

namespace tilescope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_selection(new Selection(this)) {
  setWindowTitle(tr("TileScope"));
  setAcceptDrops(true);
  setupPanels();
  setupActions();
  setupDocks();
  setupConnections();
  setupTriage();
  restoreSettings();
  updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::setupPanels() {
  m_configPanel = new ConfigPanel(m_selection, this);
  m_runPanel = new RunPanel(m_selection, this);
  m_coveragePanel = new CoveragePanel(m_selection, this);
  m_maskPanel = new MaskPanel(m_selection, this);
  m_findingsPanel = new FindingsPanel(m_selection, this);
  m_troubleshootPanel = new TroubleshootPanel(m_selection, this);
  m_sourcePanel = new SourcePanel(m_selection, this);
  m_occupancyPanel = new OccupancyPanel(m_selection, this);
  m_timingPanel = new TimingPanel(m_selection, this);
  m_speedOfLightPanel = new SpeedOfLightPanel(m_selection, this);
  m_views << m_sourcePanel << m_configPanel << m_runPanel << m_coveragePanel << m_maskPanel << m_findingsPanel
          << m_troubleshootPanel << m_occupancyPanel << m_timingPanel << m_speedOfLightPanel;
  m_pointsView = new PointsTable(m_selection, this);
  m_views << m_pointsView;
  // The central area: failures, then the verdict, then the coverage view.
  auto* central = new FitColumn(this);  // its minimum counts the banners' wrapped lines
  m_messageBanner = new Banner(central);
  m_messageBanner->setObjectName(QStringLiteral("messageBanner"));
  m_verdictBanner = new Banner(central);
  m_verdictBanner->setObjectName(QStringLiteral("verdictBanner"));
  QVBoxLayout* layout = central->column();
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_messageBanner);
  layout->addWidget(m_verdictBanner);
  layout->addWidget(m_coveragePanel, 1);
  setCentralWidget(central);
}

void MainWindow::setupActions() {
  QAction* open = setupFileMenu();
  setupRunMenu();
  setupViewMenu();
  setupHelpMenu();
  QToolBar* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolBar"));
  tb->addAction(open);
  tb->addAction(m_checkAction);
  tb->addAction(m_runAction);
  tb->addAction(m_sweepAction);
  tb->addAction(m_diagnoseAction);
  tb->addAction(m_cancelAction);
  tb->addAction(m_exportAction);
  m_targetLabel = new QLabel(this);
  m_deviceLabel = new QLabel(this);
  statusBar()->addWidget(m_targetLabel);
  statusBar()->addPermanentWidget(m_deviceLabel);
}

QAction* MainWindow::setupFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  file->addAction(tr("New from &Triton Kernel…"), this, &MainWindow::newFromTriton);
  file->addAction(tr("Ca&pture from a program…"), this, &MainWindow::captureFromProgram);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  QMenu* samples = file->addMenu(tr("&Samples"));
  for (const QString& f : samplePaths())
    samples->addAction(QFileInfo(f).fileName(), this, [this, f] { openFileAsked(f); })
        ->setToolTip(f);  // failures: message banner
  samples->setEnabled(!samples->isEmpty());
  QAction* saveCfg = file->addAction(tr("&Save Config As…"), this, &MainWindow::saveConfigAs);
  saveCfg->setShortcut(QKeySequence::Save);
  m_exportAction = file->addAction(tr("&Export Report…"), this, &MainWindow::exportReport);
  m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addAction(tr("Compare &with…"), this, &MainWindow::compareDialogAsked)
      ->setToolTip(tr("The open report's point beside a point of another report"));
  file->addAction(tr("Compare &toolchains…"), this, &MainWindow::compareToolchains)
      ->setToolTip(tr(
          "The open config compiled under two toolchains: Triton versions, nvrtc or nvcc and their flags"));
  QAction* close = file->addAction(tr("&Close Report"), this, &MainWindow::closeReport);
  close->setShortcut(QKeySequence::Close);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  return open;
}

void MainWindow::captureFromProgram() {
  if (!m_captureDialog) {
    m_captureDialog = new CaptureDialog(this);
    connect(m_captureDialog, &CaptureDialog::openConfigRequested, this, [this](const QString& path) {
      openFile(path);  // a failure shows in the message banner
      activateWindow();
    });
  }
  m_captureDialog->show();
  m_captureDialog->raise();
  m_captureDialog->activateWindow();
}

// A starting config from a Triton kernel's signature (tilescope-run init-triton, docs/triton.md).
void MainWindow::newFromTriton() {
  const QString py = QFileDialog::getOpenFileName(this, tr("Triton kernel"), QString(), tr("Python (*.py)"));
  if (py.isEmpty()) return;
  bool ok = false;
  const QString kernel = QInputDialog::getText(this, tr("New from Triton kernel"),
                                               tr("@triton.jit function (empty: the file's only kernel):"),
                                               QLineEdit::Normal, QString(), &ok);
  if (!ok) return;
  const QFileInfo info(py);
  const QString out = QFileDialog::getSaveFileName(
      this, tr("Save config"),
      info.dir().filePath(info.completeBaseName() +
                          (kernel.isEmpty() ? QString() : QLatin1Char('_') + kernel) +
                          QStringLiteral(".tscfg.json")),
      tr("Configs (*.tscfg.json)"));
  if (out.isEmpty()) return;
  QProcess proc;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  proc.start(RunPanel::runExecutable(),
             {QStringLiteral("init-triton"), kernel.isEmpty() ? py : py + QStringLiteral("::") + kernel,
              QStringLiteral("-o"), out, QStringLiteral("--force")});
  const bool done = proc.waitForFinished(180000);
  QApplication::restoreOverrideCursor();
  if (!done || proc.exitCode() != 0)
    QMessageBox::warning(this, tr("New from Triton kernel"),
                         QString::fromLocal8Bit(proc.readAllStandardError()));
  else if (!openFile(out))
    QMessageBox::warning(this, tr("Open"), m_lastError);
}

void MainWindow::setupRunMenu() {
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  m_checkAction = run->addAction(tr("Chec&k (no GPU)"), this, &MainWindow::checkConfig);
  m_checkAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  m_checkAction->setToolTip(
      tr("Validate the config and show its declared tiles, masks, shared-memory budget and occupancy "
         "for the device chosen in the Config panel; needs no GPU"));
  m_runAction = run->addAction(tr("&Run"), m_runPanel, &RunPanel::startRun);
  m_runAction->setShortcut(QKeySequence(Qt::Key_F5));
  m_sweepAction = run->addAction(tr("&Sweep"), m_runPanel, &RunPanel::startSweep);
  m_sweepAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  m_diagnoseAction = run->addAction(tr("&Diagnose"), m_runPanel, &RunPanel::startDiagnose);
  m_diagnoseAction->setShortcut(QKeySequence(Qt::Key_F6));
  m_diagnoseAction->setToolTip(
      tr("Run, then the experiments that locate the bug; the troubleshooting tree is walked over them"));
  m_cancelAction = run->addAction(tr("&Cancel"), m_runPanel, &RunPanel::cancel);
  m_cancelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  run->addSeparator();
  run->addAction(tr("Remote &Host…"), this, [this] {
    bool ok = false;
    const QString host =
        QInputDialog::getText(this, tr("Remote host"), tr("Run on (ssh host, empty = this machine):"),
                              QLineEdit::Normal, m_runPanel->remoteHost(), &ok);
    if (ok) m_runPanel->setRemoteHost(host);
  });
  run->addSeparator();
  QAction* next = run->addAction(tr("&Next Point"), this, [this] { stepPoint(+1); });
  next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
  QAction* prev = run->addAction(tr("&Previous Point"), this, [this] { stepPoint(-1); });
  prev->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
}

void MainWindow::setupViewMenu() {
  m_viewMenu = menuBar()->addMenu(tr("&View"));
  auto* themes = new QActionGroup(this);
  m_lightAction = m_viewMenu->addAction(tr("&Light Palette"), this, [this] { setTheme(Theme::light); });
  m_darkAction = m_viewMenu->addAction(tr("&Dark Palette"), this, [this] { setTheme(Theme::dark); });
  for (QAction* a : {m_lightAction, m_darkAction}) {
    a->setCheckable(true);
    themes->addAction(a);
  }
  m_lightAction->setChecked(true);
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout)
      ->setToolTip(tr("Put every panel back where a first start puts it"));
  m_viewMenu->addSeparator();
}

void MainWindow::resetLayout() {
  leaveTriageRoom();  // the central column and the docks it hid back first
  if (!m_defaultLayout.isEmpty()) restoreState(m_defaultLayout);
}

void MainWindow::setupHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard Shortcuts"), this,
                  [this] { QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText()); });
  help->addAction(tr("&Documentation"), this, [this] {
    const QString readme =
        QDir(QStringLiteral(TILESCOPE_SOURCE_RESOURCE_DIR)).filePath(QStringLiteral("../README.md"));
    if (QFileInfo::exists(readme))
      QDesktopServices::openUrl(QUrl::fromLocalFile(QDir::cleanPath(readme)));
    else
      QMessageBox::information(this, tr("Documentation"),
                               tr("README.md and docs/ of the TileScope sources describe every verb, "
                                  "config key and report field."));
  });
  help->addAction(tr("&About TileScope"), this, [this] {
    QMessageBox::about(
        this, tr("About TileScope"),
        tr("<b>TileScope %1</b><p>A workbench for debugging GPU kernels: tiles, masks, out-of-bounds "
           "accesses, occupancy and timings, from reports recorded anywhere.</p>")
            .arg(QCoreApplication::applicationVersion().toHtmlEscaped()));
  });
}

QDockWidget* MainWindow::addPanelDock(QWidget* panel, const QString& title, const QString& objectName,
                                      Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);  // saveState() keys the layout by object name
  dock->setWidget(panel);
  // Moved by its title bar, closed from it, never torn off into a window of its own:
  // a drag that meant the edge beside the title resized nothing and floated the dock.
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
  addDockWidget(area, dock);
  m_viewMenu->addAction(dock->toggleViewAction());
  return dock;
}

void MainWindow::setupDocks() {
  // No grouped dragging: a tab bar never drags its docks out; a dock moves by its title.
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
  QDockWidget* run = addPanelDock(m_runPanel, tr("Run"), QStringLiteral("runDock"), Qt::LeftDockWidgetArea);
  QDockWidget* cfg =
      addPanelDock(m_configPanel, tr("Config"), QStringLiteral("configDock"), Qt::LeftDockWidgetArea);
  QDockWidget* pts =
      addPanelDock(m_pointsView, tr("Points"), QStringLiteral("pointsDock"), Qt::LeftDockWidgetArea);
  tabifyDockWidget(run, cfg);
  tabifyDockWidget(cfg, pts);
  run->raise();
  QDockWidget* findings =
      addPanelDock(m_findingsPanel, tr("Findings"), QStringLiteral("findingsDock"), Qt::BottomDockWidgetArea);
  QDockWidget* mask =
      addPanelDock(m_maskPanel, tr("Mask"), QStringLiteral("maskDock"), Qt::RightDockWidgetArea);
  // The source beside the findings, the window's width: a kernel's lines whole.
  tabifyDockWidget(findings, addPanelDock(m_sourcePanel, tr("Source"), QStringLiteral("sourceDock"),
                                          Qt::BottomDockWidgetArea));
  tabifyDockWidget(findings, addPanelDock(m_occupancyPanel, tr("Occupancy"), QStringLiteral("occupancyDock"),
                                          Qt::BottomDockWidgetArea));
  tabifyDockWidget(findings, addPanelDock(m_timingPanel, tr("Timing"), QStringLiteral("timingDock"),
                                          Qt::BottomDockWidgetArea));
  tabifyDockWidget(findings, addPanelDock(m_speedOfLightPanel, tr("Speed of Light"),
                                          QStringLiteral("speedOfLightDock"), Qt::BottomDockWidgetArea));
  tabifyDockWidget(findings, addPanelDock(m_troubleshootPanel, tr("Troubleshooting"),
                                          QStringLiteral("troubleshootDock"), Qt::BottomDockWidgetArea));
  findings->raise();
  // First-run proportions (a saved layout replaces them): the coverage view gets the room.
  resizeDocks({run}, {360}, Qt::Horizontal);
  resizeDocks({findings}, {240}, Qt::Vertical);
  resizeDocks({mask}, {340}, Qt::Horizontal);
}

void MainWindow::setupConnections() {
  connect(m_selection, &Selection::selectionChanged, this, [this](const SelectionState& s) {
    for (ReportView* v : std::as_const(m_views)) v->onSelectionChanged(s);
    updateStatus();
  });
  connect(m_runPanel, &RunPanel::reportAvailable, this,
          [this](const std::shared_ptr<const Report>& r) { setReport(r); });
  connect(m_runPanel, &RunPanel::runFailed, this, [this](const QString& m) {
    showError(m);
    // The verdict below is the shown report's, not the failed run's: say so, or the two
    // banners read as one contradicting the other ("run failed" over "Verdict: ok").
    if (m_report) {
      updateVerdictBanner();
      const QString shown = !m_reportPath.isEmpty() ? QFileInfo(m_reportPath).fileName()
                            : m_report->verb == "check"
                                ? tr("the check of %1").arg(QFileInfo(m_configPanel->configPath()).fileName())
                                : tr("the last report");
      m_verdictBanner->showMessage(
          m_verdictBanner->kind(),
          tr("<i>Still showing %1, not the run that failed:</i><br>").arg(shown.toHtmlEscaped()) +
              verdictText(*m_report, reportDir()));
    }
  });
  connect(m_runPanel, &RunPanel::runStarted, this, [this] {
    m_messageBanner->clearMessage();
    statusBar()->clearMessage();
    updateStatus();
  });
  connect(m_runPanel, &RunPanel::remoteHostChanged, this, [this] { updateStatus(); });
  connect(m_runPanel, &RunPanel::slurmChanged, this, [this] { updateStatus(); });
  // Run/Sweep/Diagnose and Cancel follow the run: enabled again when it ends.
  connect(m_runPanel->controller(), &RunController::runningChanged, this, [this] { updateStatus(); });
  auto openSource = [this](const QString& file, int line) {
    if (!m_sourcePanel->showSourceLine(file, line)) return;
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("sourceDock"))) d->raise();
  };
  connect(m_findingsPanel, &FindingsPanel::sourceLineRequested, this, openSource);
  connect(m_speedOfLightPanel, &SpeedOfLightPanel::sourceLineRequested, this, openSource);
  // A check replaces what is shown when it was asked for (Open, Check) or when what is
  // shown is an earlier check: never a run's report the user is reading.
  connect(m_configPanel, &ConfigPanel::checkAvailable, this, [this](const ReportPtr& r) {
    if (!m_showNextCheck && m_report && m_report->verb != "check") return;
    m_showNextCheck = false;
    m_checkOrigin = CheckOrigin::none;
    setReport(r, {});
  });
  // The check runs in the background: a config that does not evaluate says so when
  // the answer comes, in the words of the action that asked.
  connect(m_configPanel, &ConfigPanel::validationFinished, this, [this](bool ok, const QString& message) {
    if (ok || m_checkOrigin == CheckOrigin::none) return;
    const CheckOrigin origin = std::exchange(m_checkOrigin, CheckOrigin::none);
    m_showNextCheck = false;
    if (origin == CheckOrigin::open) {
      m_messageBanner->showMessage(
          Banner::Kind::warning,
          tr("%1: %2").arg(QFileInfo(m_configPanel->configPath()).fileName(), message).toHtmlEscaped());
      return;
    }
    showError(tr("Check: %1").arg(message));
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("configDock"))) d->raise();
  });
  connect(m_configPanel, &ConfigPanel::edited, this, [this] {
    if (!m_report || m_stale) return;
    m_stale = true;
    updateVerdictBanner();
  });
  connect(m_configPanel->checker(), &CheckController::runningChanged, this, [this] {
    if (m_report && m_report->verb == "check") updateVerdictBanner();
  });
}

void MainWindow::setReport(ReportPtr report, const QString& path) {
  leaveTriageRoom();  // a report shown is looked at in the report views
  m_report = std::move(report);
  m_reportPath = path;
  QStringList dirs;
  if (!path.isEmpty()) dirs << QFileInfo(path).absolutePath();
  if (!m_runPanel->configPath().isEmpty()) dirs << QFileInfo(m_runPanel->configPath()).absolutePath();
  m_findingsPanel->logPanel()->setSourceDirs(dirs);
  m_findingsPanel->model()->setReportDir(path.isEmpty() ? QString() : QFileInfo(path).absolutePath());
  m_sourcePanel->setSourceDirs(dirs);
  // A report's config finds its kernel where the Source view does (Ctrl+K on a bundled sample).
  m_configPanel->setSourceDirs(dirs + SourcePanel::zooDirs());
  // Start on the point that carries the report's first error finding: that is what needs a look.
  const int first = m_report ? firstErrorPoint(*m_report) : 0;
  m_messageBanner->clearMessage();
  statusBar()->clearMessage();
  m_stale = false;
  {
    const QSignalBlocker block(m_selection);
    SelectionState s;
    s.point = first;
    m_selection->setState(s);
  }
  for (ReportView* v : std::as_const(m_views)) v->onReportLoaded(m_report);
  for (ReportView* v : std::as_const(m_views)) v->onSelectionChanged(m_selection->state());
  if (m_report && m_report->verb == "check" && path.isEmpty())
    setWindowTitle(tr("%1 (check) — TileScope").arg(QFileInfo(m_configPanel->configPath()).fileName()));
  else
    setWindowTitle(path.isEmpty() ? tr("TileScope") : tr("%1 — TileScope").arg(QFileInfo(path).fileName()));
  updateVerdictBanner();
  updateStatus();
}

QString MainWindow::okText(const Report& r, const QString& reportDir) {
  // An "ok" claims no error, not no problem: its warnings are named with it, or a
  // reader takes the "ok" for nothing to look at.
  const int n = warningCount(r);
  if (n == 0) return tr(" — no error findings");
  const QStringList lines = warningLines(r, reportDir);
  QString text = (n == 1 ? tr(" — 1 warning: %1") : tr(" — %1 warnings: %2").arg(n))
                     .arg(lines.join(QStringLiteral("; ")).toHtmlEscaped());
  if (n > lines.size()) text += tr("; %1 more in Findings").arg(n - lines.size());
  return text;
}

QString MainWindow::verdictText(const Report& r, const QString& reportDir) {
  // The cause before its symptoms and the walk's fix in the kernel's language: core's
  // headline, which the exports print too.
  static const std::shared_ptr<const Tree> tree = [] {
    try {
      return std::make_shared<const Tree>(loadDefaultTree());
    } catch (const std::exception&) {
      return std::shared_ptr<const Tree>();
    }
  }();
  const Headline h = reportHeadline(r, tree.get());
  QString text = tr("<b>Verdict: %1</b>").arg(verdictLabel(r));
  if (r.verb == "check")
    text = tr("<b>Checked without a GPU</b> on %1 (%2 point(s): declared tiles, masks, shared memory, "
              "occupancy) · ")
               .arg(qs(r.device.name).toHtmlEscaped())
               .arg(r.points.size()) +
           text;
  if (h.cause) {
    QString msg = qs(h.cause->message);
    if (msg.size() > 300) msg = msg.left(300) + QStringLiteral("…");
    if (h.gain > 0) msg = qs(gainText(h.gain)) + QStringLiteral(": ") + msg;  // a performance cause
    text += tr(" — <b>%1</b>: %2").arg(qs(h.cause->category).toHtmlEscaped(), msg.toHtmlEscaped());
  } else if (r.points.empty()) {
    text = tr("<b>Nothing was run</b>: the report holds no points (verb %1), so it proves nothing")
               .arg(r.verb.empty() ? tr("unknown") : qs(r.verb).toHtmlEscaped());
  } else if (r.verdict == Verdict::ok) {
    text += okText(r, reportDir);
  }
  if (h.leaf)
    text +=
        tr("<br><b>Fix</b> (%1): %2").arg(qs(h.leaf->title).toHtmlEscaped(), qs(h.fixText).toHtmlEscaped());
  if (h.example)
    text += QStringLiteral("<br><code>%1</code>")
                .arg(qs(h.exampleAfter).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  return text;
}

std::int64_t MainWindow::crossingTiles(const Report& r) {
  std::int64_t n = 0;
  for (const Point& p : r.points)
    for (const CoverageInfo& c : p.coverage) n = std::max(n, c.tilesCrossing);
  return n;
}

QString MainWindow::checkNote(const Report& r, bool checking) {
  // What a check without a GPU could and could not say, after its verdict.
  QString note;
  bool compiled = false;
  std::int64_t regs = -1;
  for (const Point& p : r.points) {
    compiled = compiled || p.compile.attempted;
    if (p.compile.ok) regs = std::max<std::int64_t>(regs, p.compile.regs);
  }
  if (compiled && regs >= 0)
    note += tr("<br>Compiled: up to %1 registers/thread (the Config panel and Occupancy have each point's)")
                .arg(regs);
  else if (checking)
    note += tr("<br><i>Declared tiles only so far: compiling in the background …</i>");
  if (const std::int64_t n = crossingTiles(r); n > 0)
    note +=
        tr("<br>\u26a0 %1 declared tile(s) cross the tensor's edge: a check cannot see whether their stores "
           "are masked; Run measures it")
            .arg(n);
  return note;
}

void MainWindow::updateVerdictBanner() {
  if (!m_report) {
    m_verdictBanner->clearMessage();
    return;
  }
  const Verdict v = m_report->verdict;
  Banner::Kind kind = m_report->points.empty() ? Banner::Kind::warning
                      : v == Verdict::ok       ? Banner::Kind::ok
                      : v == Verdict::slow     ? Banner::Kind::warning
                                               : Banner::Kind::error;
  QString text = verdictText(*m_report, reportDir());
  if (m_report->verb == "check") {
    text += checkNote(*m_report, m_configPanel->isChecking());
    // A check measures nothing: its "ok" is the declaration's, never the green of a run.
    if (kind == Banner::Kind::ok) kind = Banner::Kind::info;
  }
  if (m_stale) {
    // The config changed under the result: it describes the config as it was.
    text = tr("<b>Stale</b>: the config was edited since this result; Run or Check again.<br>") + text;
    if (kind == Banner::Kind::ok) kind = Banner::Kind::info;
  }
  m_verdictBanner->showMessage(kind, text);
}

QString MainWindow::reportDir() const {
  return m_reportPath.isEmpty() ? QString() : QFileInfo(m_reportPath).absolutePath();
}

void MainWindow::closeReport() {
  m_report.reset();
  m_verdictBanner->clearMessage();
  m_messageBanner->clearMessage();
  m_reportPath.clear();
  for (ReportView* v : std::as_const(m_views)) v->onReportClosed();
  setWindowTitle(tr("TileScope"));
  updateStatus();
}

QString MainWindow::shortcutsText() const {
  // Read from the actions themselves, so the list cannot drift from the menus.
  QStringList lines;
  for (QAction* menu : menuBar()->actions())
    for (QAction* a : menu->menu() ? menu->menu()->actions() : QList<QAction*>{})
      if (!a->shortcut().isEmpty())
        lines << QStringLiteral("%1\t%2").arg(a->shortcut().toString(QKeySequence::NativeText),
                                              a->text().remove(QLatin1Char('&')));
  // The coverage view's own keys (CoverageWidget::keyPressEvent), with it focused.
  lines << tr("+ / −\tZoom the coverage view") << tr("Arrows\tPan the coverage view")
        << tr("0, Home\tFit the coverage view");
  return lines.join(QLatin1Char('\n'));
}

QString MainWindow::statusTargetText() const {
  const QString host = m_runPanel->remoteHost();
  if (m_runPanel->slurm())
    return m_runPanel->sbatchOptions().isEmpty()
               ? tr("Sweeps go to: Slurm")
               : tr("Sweeps go to: Slurm (sbatch %1)").arg(m_runPanel->sbatchOptions());
  // "this machine", not "this machine's GPU": there may be none (Check needs none).
  return host.isEmpty() ? tr("Runs go to: this machine (tilescope-run)")
                        : tr("Runs go to: %1 (ssh)").arg(host);
}

QString MainWindow::statusDeviceText() const {
  if (!m_report) return tr("No report");
  const auto& d = m_report->device;
  QString text = tr("Report: %1 (cc %2, %3 SMs)%4 · verdict %5")
                     .arg(d.name.empty() ? tr("no device") : qs(d.name), qs(d.cc))
                     .arg(d.smCount)
                     .arg(d.live ? QString() : tr(" [database]"))
                     .arg(verdictLabel(*m_report));
  if (!m_report->host.empty()) text += tr(" · host %1").arg(qs(m_report->host));
  return text;
}

void MainWindow::updateStatus() {
  m_targetLabel->setText(statusTargetText());
  m_deviceLabel->setText(statusDeviceText());
  const bool canRun = !m_runPanel->configPath().isEmpty() && !m_runPanel->isRunning();
  m_checkAction->setEnabled(!m_configPanel->configPath().isEmpty() || !m_configPanel->jsonText().isEmpty());
  m_runAction->setEnabled(canRun && !m_runPanel->slurm());  // Slurm takes sweeps only
  m_sweepAction->setEnabled(canRun);
  m_diagnoseAction->setEnabled(canRun && !m_runPanel->slurm());
  m_cancelAction->setEnabled(m_runPanel->isRunning());
  m_exportAction->setEnabled(m_report != nullptr);
}

void MainWindow::stepPoint(int delta) {
  if (!m_report || m_report->points.empty()) return;
  const int n = static_cast<int>(m_report->points.size());
  m_selection->setPoint(std::clamp(m_selection->state().point + delta, 0, n - 1));
}

void MainWindow::setTheme(Theme theme) {
  m_theme = theme;
  applyTheme(theme);
  for (Banner* b : findChildren<Banner*>()) b->refreshColors();
  (theme == Theme::dark ? m_darkAction : m_lightAction)->setChecked(true);
}

}  // namespace tilescope::ui
