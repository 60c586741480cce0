#include "panels/runpanel.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "controllers/runstream.h"
#include "models/qtconv.h"
#include "models/resultmatrixmodel.h"
#include "style/colors.h"

namespace tilescope::ui {

RunPanel::RunPanel(Selection* selection, QWidget* parent)
    : QWidget(parent),
      m_selection(selection),
      m_controller(new RunController(this)),
      m_matrix(new ResultMatrixModel(this)) {
  setupLayout();
  setupConnections();
  setRunning(false);
}

RunPanel::~RunPanel() = default;

void RunPanel::setupLayout() {
  m_run = new QPushButton(tr("Run"), this);
  m_sweep = new QPushButton(tr("Sweep"), this);
  m_diagnose = new QPushButton(tr("Diagnose"), this);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_run->setToolTip(tr("tilescope-run run CONFIG --stream (F5)"));
  m_sweep->setToolTip(tr("tilescope-run sweep CONFIG --stream (Shift+F5)"));
  m_diagnose->setToolTip(
      tr("tilescope-run diagnose CONFIG --stream (F6): run, then the experiments "
         "that locate the bug, each in its own worker"));
  m_remote = new QLineEdit(this);
  m_remote->setPlaceholderText(tr("this machine's GPU, or [user@]host over ssh"));
  m_slurm = new QCheckBox(tr("Sweeps go to Slurm"), this);
  m_slurm->setToolTip(
      tr("tilescope-run sweep CONFIG --slurm: one Slurm array task per shard of the points, "
         "run from a login node with a folder the nodes share (README, \"On a cluster\")"));
  m_sbatch = new QLineEdit(this);
  m_sbatch->setPlaceholderText(tr("sbatch options: --gres=gpu:1"));
  m_sbatch->setToolTip(
      tr("Options for every sbatch of the sweep, e.g. --gres=gpu:1 --partition=gpu --time=30"));
  m_progress = new QProgressBar(this);
  m_progress->setMinimumWidth(56);  // "100%": the dock's minimum width is the buttons' row
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  m_status = new QLabel(idleText(), this);
  m_status->setWordWrap(true);
  // The matrix's rows show the swept values only; this line names them.
  m_matrixKeys = new QLabel(this);
  m_matrixKeys->setObjectName(QStringLiteral("matrixKeys"));
  m_matrixKeys->setVisible(false);
  m_pointStatus = new QListWidget(this);
  m_matrixView = new QTableView(this);
  m_matrixView->setModel(m_matrix);
  m_matrixView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_matrixView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_matrixView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_log = new QPlainTextEdit(this);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setPlaceholderText(tr("tilescope-run's stderr"));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_run);
  buttons->addWidget(m_sweep);
  buttons->addWidget(m_diagnose);
  buttons->addWidget(m_cancel);
  buttons->addWidget(m_progress, 1);
  auto* form = new QFormLayout;
  form->addRow(tr("Remote host"), m_remote);
  auto* slurm = new QHBoxLayout;
  slurm->addWidget(m_slurm);
  slurm->addWidget(m_sbatch, 1);
  form->addRow(tr("Slurm"), slurm);
  auto* matrix = new QWidget(this);
  auto* matrixLayout = new QVBoxLayout(matrix);
  matrixLayout->setContentsMargins(0, 0, 0, 0);
  matrixLayout->setSpacing(2);
  matrixLayout->addWidget(m_matrixKeys);
  matrixLayout->addWidget(m_matrixView, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(matrix);
  split->addWidget(m_pointStatus);
  split->addWidget(m_log);
  // Small minimums: the dock gives way when the Triage view asks for the height.
  for (QWidget* w :
       {static_cast<QWidget*>(matrix), static_cast<QWidget*>(m_pointStatus), static_cast<QWidget*>(m_log)})
    w->setMinimumHeight(32);
  split->setStretchFactor(0, 3);
  split->setSizes({300, 80, 120});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addLayout(form);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
}

void RunPanel::setupConnections() {
  connect(m_run, &QPushButton::clicked, this, &RunPanel::startRun);
  connect(m_sweep, &QPushButton::clicked, this, &RunPanel::startSweep);
  connect(m_diagnose, &QPushButton::clicked, this, &RunPanel::startDiagnose);
  connect(m_cancel, &QPushButton::clicked, this, &RunPanel::cancel);
  connect(m_remote, &QLineEdit::editingFinished, this,
          [this] { m_controller->setRemoteHost(m_remote->text()); });
  connect(m_slurm, &QCheckBox::toggled, m_controller, &RunController::setSlurm);
  connect(m_sbatch, &QLineEdit::editingFinished, this, [this] { setSbatchOptions(m_sbatch->text()); });
  connect(m_controller, &RunController::slurmChanged, this, [this](bool on) {
    if (m_slurm->isChecked() != on) m_slurm->setChecked(on);
    setRunning(isRunning());
    emit slurmChanged(on);
  });
  connect(m_matrixView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& idx) {
            const int point = idx.data(ResultMatrixModel::PointIndexRole).toInt();
            if (idx.isValid() && point >= 0 && m_selection) m_selection->setPoint(point);
          });
  connect(m_matrix, &QAbstractItemModel::headerDataChanged, this, [this] {
    m_matrixKeys->setText(tr("Rows: %1").arg(m_matrix->rowKeysText()));
    m_matrixKeys->setVisible(!m_matrix->rowKeysText().isEmpty());
  });
  connect(m_matrix, &QAbstractItemModel::modelReset, this, [this] { m_matrixKeys->setVisible(false); });

  RunStream* stream = m_controller->stream();
  connect(stream, &RunStream::progressAvailable, this, [this](int point, int total, const QString& msg) {
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(point);
    m_status->setText(tr("Point %1 of %2: %3").arg(point).arg(total).arg(msg));
  });
  connect(stream, &RunStream::pointAvailable, this, &RunPanel::showPoint);
  connect(m_controller, &RunController::reportAvailable, this,
          [this](const std::shared_ptr<const Report>& r) {
            m_status->setText(tr("Done: verdict %1 over %2 point(s)")
                                  .arg(QString::fromLatin1(verdictName(r->verdict)))
                                  .arg(r->points.size()));
            emit reportAvailable(r);
          });
  connect(m_controller, &RunController::logAvailable, m_log, &QPlainTextEdit::appendPlainText);
  connect(m_controller, &RunController::runStarted, this, &RunPanel::showStarted);
  connect(m_controller, &RunController::runningChanged, this, &RunPanel::setRunning);
  connect(m_controller, &RunController::runFailed, this, &RunPanel::showFailure);
  connect(m_controller, &RunController::runCancelled, this, [this] {
    m_cancelled = true;
    m_status->setText(tr("%1 cancelled").arg(m_controller->verb()));
  });
  connect(m_controller, &RunController::runFinished, this, [this](int code) {
    showFinished();
    emit runFinished(code);
  });
  connect(m_controller, &RunController::remoteHostChanged, this, [this](const QString& host) {
    if (m_remote->text().trimmed() != host) m_remote->setText(host);
    emit remoteHostChanged(host);
  });
}

void RunPanel::setSbatchOptions(const QString& options) {
  m_controller->setSbatchOptions(options);
  if (m_sbatch->text() != m_controller->sbatchOptions()) m_sbatch->setText(m_controller->sbatchOptions());
  emit slurmChanged(m_controller->slurm());
}

void RunPanel::setConfigPath(const QString& path) {
  m_controller->setConfigPath(path);
  if (!isRunning()) setRunning(false);
  m_status->setText(idleText());
}

QString RunPanel::idleText() const {
  const QString path = m_controller->configPath();
  return path.isEmpty() ? tr("Open a config to run it.") : tr("Config: %1").arg(path);
}

void RunPanel::setRunning(bool running) {
  const bool canStart = !running && !m_controller->configPath().isEmpty();
  // Slurm takes sweeps only; the remote host does not apply to them.
  const bool slurm = m_controller->slurm();
  m_run->setEnabled(canStart && !slurm);
  m_sweep->setEnabled(canStart);
  m_diagnose->setEnabled(canStart && !slurm);
  m_cancel->setEnabled(running);
  m_remote->setEnabled(!running && !slurm);
  m_slurm->setEnabled(!running);
  m_sbatch->setEnabled(!running && slurm);
}

void RunPanel::showStarted(const QString& verb) {
  m_matrix->clear();
  m_pointStatus->clear();
  m_log->clear();
  m_streamedPoints = 0;
  m_failed = m_cancelled = false;
  m_progress->setRange(0, 0);  // busy until the first progress event names the total
  m_status->setText(tr("Starting %1 …").arg(verb));
  emit runStarted(verb);
}

void RunPanel::showPoint(const Point& p) {
  QListWidgetItem* item = nullptr;
  if (!p.experiment.empty()) {
    // diagnose: every capture is of point 0; one row per experiment, as in its report.
    Point row = p;
    row.index = m_streamedPoints;
    row.trial = 0;
    m_matrix->setPoint(row, m_streamedPoints++);
    item = new QListWidgetItem(tr("%1: %2, %3 finding(s)")
                                   .arg(qs(p.experiment), QString::fromLatin1(verdictName(p.verdict)))
                                   .arg(p.findings.size()),
                               m_pointStatus);
  } else {
    m_matrix->setPoint(p, m_streamedPoints++);
    item = new QListWidgetItem(tr("%1 (trial %2): %3, %4 finding(s)")
                                   .arg(qs(p.label))
                                   .arg(p.trial)
                                   .arg(QString::fromLatin1(verdictName(p.verdict)))
                                   .arg(p.findings.size()),
                               m_pointStatus);
  }
  item->setBackground(verdictColor(p.verdict));
  item->setForeground(textColorOn(verdictColor(p.verdict)));
}

void RunPanel::showFailure(const QString& message) {
  m_failed = true;
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  m_status->setText(tr("\u2716 %1").arg(message));
  emit runFailed(message);
}

void RunPanel::showFinished() {
  m_progress->setRange(0, 1);
  m_progress->setValue(m_failed || m_cancelled ? 0 : 1);  // a failed or cancelled run is not 100 % done
}

QString RunPanel::statusText() const { return m_status->text(); }
int RunPanel::progressValue() const { return m_progress->value(); }
int RunPanel::progressMaximum() const { return m_progress->maximum(); }

void RunPanel::onReportLoaded(const ReportPtr& report) {
  // Rows sized to their labels cost a measurement of every row on each change: a
  // long sweep's rows take the default height instead.
  constexpr size_t kMeasuredRows = 256;
  m_matrixView->verticalHeader()->setSectionResizeMode(
      report && report->points.size() > kMeasuredRows ? QHeaderView::Fixed : QHeaderView::ResizeToContents);
  if (report) m_matrix->setReport(*report);
  // Another report replaces a failed run's status: it no longer describes what is shown.
  if (m_failed && !isRunning()) {
    m_failed = false;
    m_progress->setValue(0);
    m_status->setText(idleText());
  }
}

void RunPanel::onReportClosed() { m_matrix->clear(); }

void RunPanel::onSelectionChanged(const SelectionState& state) {
  const QModelIndex idx = m_matrix->indexForPoint(state.point);
  if (idx.isValid() && idx != m_matrixView->currentIndex()) {
    const QSignalBlocker block(m_matrixView->selectionModel());
    m_matrixView->setCurrentIndex(idx);
  }
}

}  // namespace tilescope::ui
