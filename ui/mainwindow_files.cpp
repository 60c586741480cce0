// MainWindow's files: opening reports and configs (File ▸ Open, recent files,
// samples, drops), saving a config and asking before its edits are lost,
// exporting, and the settings kept between starts. The window's construction,
// menus, docks and views are in mainwindow.cpp.
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
#include <QVBoxLayout>
#include <fstream>
#include <stdexcept>
#include "controllers/checkcontroller.h"
#include "export/reportexporter.h"
#include "mainwindow.h"
#include "models/qtconv.h"
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
#include "widgets/pointstable.h"

namespace tilescope::ui {

namespace {
constexpr int kMaxRecent = 10;
}  // namespace

bool MainWindow::openFile(const QString& path) {
  if (path.endsWith(QLatin1String(".tscfg.json"))) return openConfig(path);
  return openReport(path);
}

bool MainWindow::openReport(const QString& path) {
  // One read decides (openDocument, as the CLI's `export`): a config goes to the
  // config panel. Every failure names the path and the problem; no input may crash the window.
  try {
    const OpenedDocument doc = openDocument(path.toStdString());
    if (doc.kind == DocumentKind::config) return openConfig(path);
    if (doc.kind == DocumentKind::triage) return showTriage(doc.triage, path);
    setReport(doc.report, path);
    addRecentFile(path);
    return true;
  } catch (const std::exception& e) {
    showError(QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::showError(const QString& message) {
  m_lastError = message;
  leaveTriageRoom();  // the message banner is the central column's
  m_messageBanner->showMessage(Banner::Kind::error, message.toHtmlEscaped());
  statusBar()->showMessage(message, 15000);
}

bool MainWindow::checkConfig() {
  if (m_configPanel->configPath().isEmpty() && m_configPanel->jsonText().isEmpty()) {
    showError(tr("Check: open a config first (File ▸ Open, a .tscfg.json)"));
    return false;
  }
  m_showNextCheck = true;
  m_checkOrigin = CheckOrigin::check;
  m_configPanel->recheck();  // the analysis, then the compile: their answers replace what is shown
  return true;
}

bool MainWindow::openConfig(const QString& path) {
  m_showNextCheck = true;  // opening a config checks it and shows the result
  m_checkOrigin = CheckOrigin::open;
  m_messageBanner->clearMessage();
  m_configPanel->setSourceDirs({});
  if (!m_configPanel->openConfig(path)) {
    m_showNextCheck = false;
    m_checkOrigin = CheckOrigin::none;
    showError(m_configPanel->loadError().isEmpty() ? tr("%1: cannot open config").arg(path)
                                                   : m_configPanel->loadError());
    return false;
  }
  m_runPanel->setConfigPath(QFileInfo(path).absoluteFilePath());
  m_findingsPanel->logPanel()->setSourceDirs({QFileInfo(path).absolutePath()});
  m_sourcePanel->setSourceDirs({QFileInfo(path).absolutePath()});
  addRecentFile(path);
  if (auto* d = findChild<QDockWidget*>(QStringLiteral("configDock"))) d->raise();
  updateStatus();
  return true;
}

void MainWindow::openDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open report or config"), QString(),
                                   tr("TileScope files (*.json);;Configs (*.tscfg.json);;All files (*)"));
  if (!path.isEmpty()) openFileAsked(path);  // a failure shows in the message banner
}

QString MainWindow::defaultExportPath() const {
  // Beside the report, named after it; a run's report has no file: the config's folder.
  const QString base = !m_reportPath.isEmpty() ? m_reportPath : m_configPanel->configPath();
  if (base.isEmpty()) return QDir::home().filePath(QStringLiteral("report.html"));
  const QFileInfo fi(base);
  return fi.dir().filePath(fi.fileName().section(QLatin1Char('.'), 0, 0) + QStringLiteral(".html"));
}

QString MainWindow::withExportExtension(const QString& path, const QString& filter) {
  // A name typed without an extension takes the chosen filter's ("HTML (*.html)" → .html).
  if (!QFileInfo(path).suffix().isEmpty()) return path;
  const int star = static_cast<int>(filter.indexOf(QLatin1String("*.")));
  const QString ext =
      star >= 0 ? filter.mid(star + 1).section(QLatin1Char(')'), 0, 0) : QStringLiteral(".html");
  return path + ext;
}

void MainWindow::exportReport() {
  if (!m_report) return;
  QString filter;
  QString path = QFileDialog::getSaveFileName(this, tr("Export report"), defaultExportPath(),
                                              tr("HTML (*.html);;PDF (*.pdf);;Markdown (*.md)"), &filter);
  if (path.isEmpty()) return;
  path = withExportExtension(path, filter);
  QString error;
  if (!tilescope::ui::exportReport(*m_report, path, &error))
    showError(tr("Export to %1 failed: %2").arg(path, error));
  else
    statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

QString MainWindow::sampleSessionPath() {
  // The traced run first: a new user without a GPU sees a located fault, its source
  // line and the measured footprints; then the diagnose session (File ▸ Samples has both).
  const QString dir = QString::fromStdString(tilescope::resourceDir().string());
  for (const char* name : {"sample/traced.json", "sample/session.json"}) {
    const QString path = QDir(dir).filePath(QString::fromLatin1(name));
    if (QFileInfo::exists(path)) return path;
  }
  const QString fixture = QDir(QStringLiteral(TILESCOPE_SOURCE_RESOURCE_DIR))
                              .filePath(QStringLiteral("../tests/data/reports/gemm_sweep.json"));
  return QFileInfo::exists(fixture) ? QDir::cleanPath(fixture) : QString();
}

QStringList MainWindow::samplePaths() {
  const QDir dir(
      QDir(QString::fromStdString(tilescope::resourceDir().string())).filePath(QStringLiteral("sample")));
  QStringList out;
  for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
    out << dir.filePath(name);
  return out;
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  const QString abs = QFileInfo(path).absoluteFilePath();
  files.removeAll(abs);
  files.prepend(abs);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue(QStringLiteral("recentFiles"), files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList files = recentFiles();
  for (const QString& f : files)
    m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] { openFileAsked(f); })->setToolTip(f);
  m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::restoreSettings() {
  QSettings s;
  m_defaultLayout = saveState();  // the docks as setupDocks() placed them, for View ▸ Reset Layout
  restoreGeometry(s.value(QStringLiteral("mainwindow/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("mainwindow/state")).toByteArray());
  m_runPanel->setRemoteHost(s.value(QStringLiteral("run/remoteHost")).toString());
  m_runPanel->setSbatchOptions(s.value(QStringLiteral("run/sbatchOptions")).toString());
  m_runPanel->setSlurm(s.value(QStringLiteral("run/slurm"), false).toBool());
  m_theme = themeFromName(s.value(QStringLiteral("view/theme"), QStringLiteral("light")).toString());
  (m_theme == Theme::dark ? m_darkAction : m_lightAction)->setChecked(true);
  rebuildRecentMenu();
}

void MainWindow::saveSettings() const {
  QSettings s;
  s.setValue(QStringLiteral("mainwindow/geometry"), saveGeometry());
  s.setValue(QStringLiteral("mainwindow/state"), saveState());
  s.setValue(QStringLiteral("run/remoteHost"), m_runPanel->remoteHost());
  s.setValue(QStringLiteral("run/sbatchOptions"), m_runPanel->sbatchOptions());
  s.setValue(QStringLiteral("run/slurm"), m_runPanel->slurm());
  s.setValue(QStringLiteral("view/theme"), themeName(m_theme));
}

bool MainWindow::saveConfigAs() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save config"), m_configPanel->configPath(),
                                                    tr("Configs (*.tscfg.json)"));
  if (path.isEmpty()) return false;
  if (m_configPanel->save(path)) return true;
  statusBar()->showMessage(tr("%1: cannot write").arg(path), 5000);
  return false;
}

bool MainWindow::mayDropConfigEdits() {
  if (!m_configPanel->isModified()) return true;
  const QString name = m_configPanel->configPath().isEmpty()
                           ? tr("The config")
                           : QFileInfo(m_configPanel->configPath()).fileName();
  QMessageBox box(QMessageBox::Warning, tr("Unsaved config edits"),
                  tr("%1 has edits that are not saved.").arg(name),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("unsavedConfigBox"));
  box.setDefaultButton(QMessageBox::Save);
  const int choice = box.exec();
  if (choice == QMessageBox::Save) return saveConfigAs();
  return choice == QMessageBox::Discard;
}

void MainWindow::openFileAsked(const QString& path) {
  if (mayDropConfigEdits()) openFile(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!mayDropConfigEdits()) {
    event->ignore();
    return;
  }
  if (m_runPanel->isRunning()) m_runPanel->cancel();
  leaveTriageRoom();  // the layout saved is the report views'
  saveSettings();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!event->mimeData()->hasUrls()) return;
  for (const QUrl& u : event->mimeData()->urls())
    if (u.isLocalFile() && u.toLocalFile().endsWith(QLatin1String(".json"))) {
      event->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& u : event->mimeData()->urls())
    if (u.isLocalFile()) openFileAsked(u.toLocalFile());  // a failure shows in the message banner
  event->acceptProposedAction();
}

}  // namespace tilescope::ui
