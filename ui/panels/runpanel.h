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
  void runFinished(int exitCode);
  void runFailed(const QString& message);
  void remoteHostChanged(const QString& host);

 private:
  void start(const QString& verb);
  void setRunning(bool running);
  void appendLog(const QString& text);

  Selection* m_selection;
  QString m_configPath;
  QProcess* m_process = nullptr;
  RunStream* m_stream;
  ResultMatrixModel* m_matrix;
  int m_streamedPoints = 0;
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
