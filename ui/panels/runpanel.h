// Run, Sweep and Diagnose: starts `tilescope-run run|sweep|diagnose CONFIG
// --stream` (locally, or `ssh HOST tilescope-run ...`) through QProcess, shows
// progress per point (per experiment for diagnose), and the result matrix
// (points × trials, or one row per experiment, coloured by verdict). Selecting a
// cell selects that point in every view.
#pragma once

#include <QProcess>
#include <QWidget>

#include "reportview.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tilescope::ui {

class ResultMatrixModel;
class RunStream;

class RunPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit RunPanel(Selection* selection, QWidget* parent = nullptr);
  ~RunPanel() override;

  void setConfigPath(const QString& path);
  QString configPath() const { return m_configPath; }
  /// "" = run locally; else runs go through `ssh HOST`.
  void setRemoteHost(const QString& host);
  QString remoteHost() const;
  /// The tilescope-run to start: next to this executable, else on PATH.
  static QString runExecutable();
  /// Program and arguments of a run of `verb` ("run", "sweep" or "diagnose"). Over
  /// ssh the arguments are quoted for the remote shell.
  QStringList commandLine(const QString& verb) const;
  bool isRunning() const;
  /// The status line under the buttons.
  QString statusText() const;
  int progressValue() const;
  int progressMaximum() const;
  /// The message for a run that ended with `code` (normal exit), or "" when it succeeded;
  /// `stderrTail` is the last lines tilescope-run (or ssh) wrote.
  static QString failureMessage(const QString& verb, int code, bool gotReport, const QString& stderrTail, bool remote);

  ResultMatrixModel* matrixModel() const { return m_matrix; }
  QTableView* matrixView() const { return m_matrixView; }
  RunStream* stream() const { return m_stream; }

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 public slots:
  void startRun() { start(QStringLiteral("run")); }
  void startSweep() { start(QStringLiteral("sweep")); }
  void startDiagnose() { start(QStringLiteral("diagnose")); }
  void cancel();

 signals:
  /// The final report of a run arrived: the main window shows it.
  void reportAvailable(std::shared_ptr<const tilescope::Report> report);
  void runStarted(const QString& verb);
  void runFinished(int exitCode);
  /// Every way a run can fail: not started, cancelled, crashed, an exit status
  /// other than 0/1, ssh's own failure (255), or no report in the stream.
  void runFailed(const QString& message);
  void remoteHostChanged(const QString& host);

 private:
  void start(const QString& verb);
  void setRunning(bool running);
  void appendLog(const QString& text);
  void fail(const QString& message);
  void finished(int code, QProcess::ExitStatus status);

  Selection* m_selection;
  QString m_configPath;
  QProcess* m_process = nullptr;
  RunStream* m_stream;
  ResultMatrixModel* m_matrix;
  int m_streamedPoints = 0;
  QString m_verb;
  QStringList m_stderrTail;   ///< last lines of stderr, for the failure message
  bool m_gotReport = false;
  bool m_cancelled = false;
  bool m_failed = false;      ///< the last run failed: its status goes stale when a report loads
  QPushButton* m_run;
  QPushButton* m_sweep;
  QPushButton* m_diagnose;
  QPushButton* m_cancel;
  QLineEdit* m_remote;
  QProgressBar* m_progress;
  QLabel* m_status;
  QListWidget* m_pointStatus;
  QTableView* m_matrixView;
  QPlainTextEdit* m_log;
};

}  // namespace tilescope::ui
