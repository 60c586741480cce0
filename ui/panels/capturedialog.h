// File ▸ Capture from a program… (docs/capture.md): the form of `tilescope-run
// capture`, run in the background by a RunController of its own (the same
// process runner and stream reader as Run). Launches are listed as the
// recorders report them; when the program ends the dialog says how, and a
// captured launch's config opens in the workbench like File ▸ Open.
#pragma once

#include <QDialog>
#include <QHash>

#include "tilescope/capture/capture.h"
#include "tilescope/run/stream.h"

class QCheckBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tilescope::ui {

class Banner;
class RunController;

class CaptureDialog : public QDialog {
  Q_OBJECT
 public:
  /// What the form holds; the capture's options, as the CLI names them.
  struct Settings {
    QString command;     ///< the program and its arguments (QProcess::splitCommand)
    QString workingDir;  ///< --cwd ("" = where the workbench runs; on HOST with --remote)
    QString outputDir;   ///< -o: a new or empty folder
    QString kernelRegex;
    int launchSkip = 0;
    int launchCount = 0;  ///< 0: every matching launch
    QString maxBytes = QStringLiteral("4G");
    QString remoteHost;
    bool keepCachingAllocator = false;
  };
  enum Column { colIndex, colKernel, colLanguage, colGrid, colConfig, colCount };

  explicit CaptureDialog(QWidget* parent = nullptr);
  ~CaptureDialog() override;

  void setSettings(const Settings& s);
  Settings settings() const;
  /// "" when `s` can start a capture, else one sentence saying what to fix.
  static QString validate(const Settings& s);
  /// tilescope-run's arguments after `capture`: --stream -o DIR ... -- PROGRAM ARGS.
  static QStringList arguments(const Settings& s);
  /// A fresh folder for the next capture: Documents (else the temp folder)/TileScope captures/capture-TIME.
  static QString defaultOutputDir();

  RunController* controller() const { return m_controller; }
  bool isRunning() const;
  /// The status strip's text: a validation error, the run's state, how the program ended.
  QString statusText() const;
  QTableWidget* launchTable() const { return m_table; }
  QString logText() const;
  /// The absolute config path of a table row ("" when that launch has none).
  QString configOfRow(int row) const;
  /// The first launch's config of the finished capture ("" when none).
  QString firstConfig() const;

 public slots:
  /// Validates the form and starts the capture; false (the status says why) when it cannot.
  bool startCapture();
  void cancelCapture();

 signals:
  /// Open this config in the workbench (File ▸ Open's path).
  void openConfigRequested(const QString& path);

 private:
  QWidget* buildForm();
  QWidget* buildResults();
  void connectController();
  void browseFolder(QLineEdit* edit, const QString& title);
  void onCaptureEvent(const CaptureEvent& e);
  void onCaptureFinished(const QString& dir, const CaptureInfo& info);
  void onRunFailed(const QString& message);
  void onRunFinished(int code);
  int rowFor(const QString& id);
  void setRow(int row, const CapturedLaunch& l, const QString& dir);
  void updateButtons();
  void openRow(int row);

  RunController* m_controller;
  QWidget* m_form;
  QLineEdit* m_command;
  QLineEdit* m_workingDir;
  QLineEdit* m_outputDir;
  QLineEdit* m_kernel;
  QSpinBox* m_skip;
  QSpinBox* m_count;
  QLineEdit* m_maxBytes;
  QLineEdit* m_remote;
  QCheckBox* m_keepAllocator;
  Banner* m_status;
  QTableWidget* m_table;
  QPlainTextEdit* m_log;
  QPushButton* m_captureButton;
  QPushButton* m_cancelButton;
  QPushButton* m_openButton;
  QPushButton* m_openFirstButton;
  QHash<QString, int> m_rows;  ///< launch id -> table row
  QString m_autoOutput;        ///< the default output folder while the user has not chosen one
  QString m_runOutput;         ///< the current capture's folder (absolute), "" before the first
  bool m_finished = false;     ///< capture_done arrived for the current run
  bool m_failed = false;       ///< the current run failed (the status says why)
};

}  // namespace tilescope::ui
