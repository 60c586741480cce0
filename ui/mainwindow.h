// The workbench's main window: dockable panels over one report snapshot and one
// shared selection; open/run/export actions, recent files, drag and drop,
// light/dark palettes, layout kept in QSettings.
#pragma once

#include <QMainWindow>
#include <QPointer>

#include "reportview.h"
#include "style/palettes.h"

class QLabel;
class QMenu;
class QTableView;
class QDockWidget;

namespace tilescope::ui {

class Banner;
class ConfigPanel;
class CoveragePanel;
class FindingsPanel;
class MaskPanel;
class OccupancyPanel;
class PointsTable;
class RunPanel;
class SourcePanel;
class SpeedOfLightPanel;
class TimingPanel;
class TroubleshootPanel;
class TriagePanel;
class CaptureDialog;
class CompareDialog;
class ToolchainDialog;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a report (.json) or a config (.tscfg.json, or any JSON with schema
  /// tilescope.config/1). On failure returns false and lastError() says why.
  bool openFile(const QString& path);
  bool openReport(const QString& path);
  bool openConfig(const QString& path);
  /// Opens a triage (tilescope.triage/1) in the Triage view (mainwindow_triage.cpp).
  bool openTriage(const QString& path);
  /// Shows a report snapshot (from a file or a finished run).
  void setReport(ReportPtr report, const QString& path = {});
  void closeReport();
  ReportPtr report() const { return m_report; }
  QString lastError() const { return m_lastError; }
  Selection* selection() const { return m_selection; }

  ConfigPanel* configPanel() const { return m_configPanel; }
  RunPanel* runPanel() const { return m_runPanel; }
  CoveragePanel* coveragePanel() const { return m_coveragePanel; }
  MaskPanel* maskPanel() const { return m_maskPanel; }
  FindingsPanel* findingsPanel() const { return m_findingsPanel; }
  OccupancyPanel* occupancyPanel() const { return m_occupancyPanel; }
  TimingPanel* timingPanel() const { return m_timingPanel; }
  SpeedOfLightPanel* speedOfLightPanel() const { return m_speedOfLightPanel; }
  TroubleshootPanel* troubleshootPanel() const { return m_troubleshootPanel; }
  SourcePanel* sourcePanel() const { return m_sourcePanel; }
  PointsTable* pointsTable() const { return m_pointsView; }
  TriagePanel* triagePanel() const { return m_triagePanel; }
  /// True while an open triage's tab is in front: it is then the main view, the central
  /// column and the docks of the other areas having given way (mainwindow_triage.cpp).
  bool triageHasTheRoom() const { return m_triageRoom; }
  /// File ▸ Capture from a program…: shows the capture dialog (made on first use;
  /// it keeps its form and its capture while hidden). Its configs open as File ▸ Open's.
  void captureFromProgram();
  CaptureDialog* captureDialog() const { return m_captureDialog; }
  /// File ▸ Compare with…: the open report's selected point (A) against point `pointB`
  /// of the report at `path` (-1: its worst) in the comparison view (mainwindow_compare.cpp).
  /// False with lastError() when there is no report open or `path` is not a report.
  bool compareWith(const QString& path, int pointB = -1);
  CompareDialog* compareDialog() const { return m_compareDialog; }
  /// File ▸ Compare toolchains…: the open config under two toolchains (docs/toolchains.md,
  /// mainwindow_toolchains.cpp); the dialog is made on first use and keeps its form.
  void compareToolchains();
  ToolchainDialog* toolchainDialog() const { return m_toolchainDialog; }
  /// The verdict of the open report, its first error finding and the walk's fix.
  Banner* verdictBanner() const { return m_verdictBanner; }
  /// Failures (a file that does not open, a run that failed), non-modal.
  Banner* messageBanner() const { return m_messageBanner; }
  /// Checks the open config without a GPU and shows the result when it arrives (the
  /// declared-only analysis, then `tilescope-run check`'s compile: CheckController).
  /// False when there is no config to check.
  bool checkConfig();
  /// Shows an error in the message banner and the status bar.
  void showError(const QString& message);
  /// The verdict banner's text for a report ("" for none); files relative to `reportDir`.
  static QString verdictText(const Report& report, const QString& reportDir = {});
  /// After an "ok": " — no error findings", or its warnings ("1 warning: … at t.cu:24").
  static QString okText(const Report& report, const QString& reportDir);
  /// A check's postscript: compiled or not (yet), and the tiles whose masks only a run can prove.
  static QString checkNote(const Report& report, bool checking);
  /// The most declared tiles crossing an output's edge at any point.
  static std::int64_t crossingTiles(const Report& report);
  QStringList recentFiles() const;
  QString statusDeviceText() const;
  QString statusTargetText() const;
  /// Every menu shortcut and its action, one per line (Help ▸ Keyboard Shortcuts).
  QString shortcutsText() const;
  /// The export dialog's start: beside the report (or config), named after it, .html.
  QString defaultExportPath() const;
  /// `path` with the extension of the chosen filter when it has none.
  static QString withExportExtension(const QString& path, const QString& filter);
  void setTheme(Theme theme);
  /// View ▸ Reset Layout: every dock where, and as visible as, a first start puts it.
  void resetLayout();
  /// Unsaved config edits before a user's Open or Close: Save (as), Discard or
  /// Cancel; true when the edits may go. openFile() itself never asks.
  bool mayDropConfigEdits();
  /// File ▸ Save Config As…: true when it was written.
  bool saveConfigAs();
  /// The bundled traced sample (resources/sample/traced.json), else the diagnose
  /// session (sample/session.json); in a source-tree
  /// build without one, the fixture sweep tests/data/reports/gemm_sweep.json; else "".
  static QString sampleSessionPath();
  /// resources/sample/*.json (resourceDir()), sorted by name; what File ▸ Samples lists.
  static QStringList samplePaths();
  Theme theme() const { return m_theme; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  /// Open, Open Recent, Samples and drops: openFile() after mayDropConfigEdits().
  void openFileAsked(const QString& path);
  void setupPanels();
  void setupActions();       ///< the menus, the tool bar and the status bar's labels
  QAction* setupFileMenu();  ///< returns Open, for the tool bar
  void setupRunMenu();
  void setupViewMenu();
  void setupHelpMenu();
  void newFromTriton();
  void setupDocks();
  void setupConnections();
  void setupTriage();  ///< the Triage dock, its export action and connections
  bool showTriage(const nlohmann::json& doc, const QString& path);
  void updateTriageRoom();        ///< the room as the Triage dock's state asks (in front, docked, a triage)
  void setTriageRoom(bool room);  ///< the central column and other areas' docks hidden, or back
  void leaveTriageRoom();         ///< the room given back and another tab of the Triage's area in front
  void restoreSettings();
  void saveSettings() const;
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void updateStatus();
  void exportReport();
  void openDialog();
  void compareDialogAsked();
  void stepPoint(int delta);
  void updateVerdictBanner();
  QString reportDir() const;  ///< the open report's folder, "" for a check or none
  QDockWidget* addPanelDock(QWidget* panel, const QString& title, const QString& objectName,
                            Qt::DockWidgetArea area);

  Selection* m_selection;
  ReportPtr m_report;
  QString m_reportPath;
  QString m_lastError;
  Theme m_theme = Theme::light;
  QList<ReportView*> m_views;
  CaptureDialog* m_captureDialog = nullptr;
  CompareDialog* m_compareDialog = nullptr;
  ToolchainDialog* m_toolchainDialog = nullptr;
  ConfigPanel* m_configPanel = nullptr;
  RunPanel* m_runPanel = nullptr;
  CoveragePanel* m_coveragePanel = nullptr;
  MaskPanel* m_maskPanel = nullptr;
  FindingsPanel* m_findingsPanel = nullptr;
  OccupancyPanel* m_occupancyPanel = nullptr;
  TimingPanel* m_timingPanel = nullptr;
  SpeedOfLightPanel* m_speedOfLightPanel = nullptr;
  TroubleshootPanel* m_troubleshootPanel = nullptr;
  SourcePanel* m_sourcePanel = nullptr;
  PointsTable* m_pointsView = nullptr;
  TriagePanel* m_triagePanel = nullptr;
  bool m_triageRoom = false;
  bool m_changingRoom = false;                     ///< hiding docks emits their visibility: not a user's act
  int m_areaBeforeRoom = 0;                        ///< the Triage's area's size before it took the room
  QList<QPointer<QDockWidget>> m_gaveWay;          ///< the docks the room hid, to show again
  QList<QPointer<QDockWidget>> m_frontBeforeRoom;  ///< those of them in front of their tab groups
  Banner* m_verdictBanner = nullptr;
  Banner* m_messageBanner = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QLabel* m_targetLabel = nullptr;
  QLabel* m_deviceLabel = nullptr;
  QAction* m_exportAction = nullptr;
  QAction* m_runAction = nullptr;
  QAction* m_sweepAction = nullptr;
  QAction* m_diagnoseAction = nullptr;
  QAction* m_cancelAction = nullptr;
  QAction* m_checkAction = nullptr;
  bool m_stale = false;          ///< the config was edited since the shown report arrived
  bool m_showNextCheck = false;  ///< the next check replaces the shown report (after Open or Check)
  /// What asked for the check in flight: its failure is said in that action's words.
  enum class CheckOrigin { none, open, check };
  CheckOrigin m_checkOrigin = CheckOrigin::none;
  QAction* m_lightAction = nullptr;
  QAction* m_darkAction = nullptr;
  QByteArray m_defaultLayout;  ///< saveState() before the saved layout was restored
};

}  // namespace tilescope::ui
