// Run, Sweep and Diagnose: the view of a RunController (which owns the process and
// the stream). Shows progress per point (per experiment for diagnose), the result
// matrix (points × trials, or one row per experiment, coloured by verdict) and the
// run's log. Selecting a cell selects that point in every view.
#pragma once

#include <QWidget>
#include <memory>

#include "controllers/runcontroller.h"
#include "reportview.h"

class QCheckBox;
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

  RunController* controller() const { return m_controller; }
  // The controller's, for the main window and tests.
  void setConfigPath(const QString& path);
  QString configPath() const { return m_controller->configPath(); }
  void setRemoteHost(const QString& host) { m_controller->setRemoteHost(host); }
  QString remoteHost() const { return m_controller->remoteHost(); }
  void setSlurm(bool on) { m_controller->setSlurm(on); }
  bool slurm() const { return m_controller->slurm(); }
  void setSbatchOptions(const QString& options);
  QString sbatchOptions() const { return m_controller->sbatchOptions(); }
  static QString runExecutable() { return RunController::runExecutable(); }
  QStringList commandLine(const QString& verb) const { return m_controller->commandLine(verb); }
  bool isRunning() const { return m_controller->isRunning(); }
  RunStream* stream() const { return m_controller->stream(); }
  static QString failureMessage(const QString& verb, int code, bool gotReport, const QString& stderrTail,
                                bool remote) {
    return RunController::failureMessage(verb, code, gotReport, stderrTail, remote);
  }

  /// The status line under the buttons.
  QString statusText() const;
  int progressValue() const;
  int progressMaximum() const;
  ResultMatrixModel* matrixModel() const { return m_matrix; }
  QTableView* matrixView() const { return m_matrixView; }

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 public slots:
  void startRun() { m_controller->start(QStringLiteral("run")); }
  void startSweep() { m_controller->start(QStringLiteral("sweep")); }
  void startDiagnose() { m_controller->start(QStringLiteral("diagnose")); }
  void cancel() { m_controller->cancel(); }

 signals:
  // Forwarded from the controller, so that views and tests can watch the panel.
  void reportAvailable(std::shared_ptr<const tilescope::Report> report);
  void runStarted(const QString& verb);
  void runFinished(int exitCode);
  void runFailed(const QString& message);
  void remoteHostChanged(const QString& host);
  void slurmChanged(bool on);

 private:
  void setupLayout();
  void setupConnections();
  void setRunning(bool running);
  void showStarted(const QString& verb);
  void showPoint(const Point& p);
  void showFailure(const QString& message);
  void showFinished();
  QString idleText() const;

  Selection* m_selection;
  RunController* m_controller;
  ResultMatrixModel* m_matrix;
  int m_streamedPoints = 0;
  bool m_failed = false;  ///< the last run failed: its status goes stale when a report loads
  bool m_cancelled = false;
  QPushButton* m_run;
  QPushButton* m_sweep;
  QPushButton* m_diagnose;
  QPushButton* m_cancel;
  QLineEdit* m_remote;
  QCheckBox* m_slurm;
  QLineEdit* m_sbatch;
  QProgressBar* m_progress;
  QLabel* m_status;
  QLabel* m_matrixKeys;
  QListWidget* m_pointStatus;
  QTableView* m_matrixView;
  QPlainTextEdit* m_log;
};

}  // namespace tilescope::ui
