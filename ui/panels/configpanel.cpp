#include "panels/configpanel.h"

#include <algorithm>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "controllers/checkcontroller.h"
#include "controllers/configcheck.h"
#include "models/qtconv.h"
#include "panels/configfault.h"
#include "panels/configform.h"
#include "tilescope/base/json_text.h"
#include "tilescope/config/config.h"
#include "tilescope/model/point.h"

namespace tilescope::ui {

using nlohmann::ordered_json;

ConfigPanel::ConfigPanel(Selection* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_checker(new CheckController(this)) {
  m_tabs = new QTabWidget(this);
  m_form = new QTreeWidget(m_tabs);
  m_form->setColumnCount(2);
  m_form->setHeaderLabels({tr("Setting"), tr("Value")});
  m_form->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_text = new QPlainTextEdit(m_tabs);
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  m_text->setFont(mono);
  m_tabs->addTab(m_form, tr("Form"));
  m_tabs->addTab(m_text, tr("JSON"));
  m_status = new QLabel(tr("No config"), this);
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::PlainText);  // paths and compiler messages are not markup
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_device = new QComboBox(this);
  m_device->addItems(checkDeviceKeys());
  setDevice(QStringLiteral("h100"));
  m_device->setToolTip(
      tr("The device of the database a config is checked against (launch limits, shared memory, occupancy, "
         "the architecture it is compiled for)"));
  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(300);  // validate once typing pauses
  auto* layout = new QVBoxLayout(this);
  auto* deviceRow = new QHBoxLayout;
  deviceRow->addWidget(new QLabel(tr("Check for device"), this));
  deviceRow->addWidget(m_device, 1);
  layout->addLayout(deviceRow);
  layout->addWidget(m_tabs, 1);
  layout->addWidget(m_status);
  setupConnections();
}

void ConfigPanel::setupConnections() {
  connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
    if (m_updating) return;
    emit edited();
    m_debounce->start();
    setModified(m_text->toPlainText() != m_savedText);
  });
  connect(m_debounce, &QTimer::timeout, this, &ConfigPanel::parseText);
  connect(m_device, &QComboBox::currentTextChanged, this, [this] {
    if (!m_updating && m_doc.is_object() && !m_doc.empty()) validate();
  });
  connect(m_form, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (m_updating || column != 1) return;
    setFormValue(item->data(0, kConfigPathRole).toString(), item->text(1));
  });
  connect(m_checker, &CheckController::staticCheckAvailable, this,
          [this](const ReportPtr& r, const QString& error, const QString& path) {
            m_check = r;
            m_error = error;
            m_errorPath = path;
            if (m_error.isEmpty()) m_lastGood = m_doc;
            markError();
            emit validationFinished(m_error.isEmpty(), m_error);
            emit checkAvailable(r);
          });
  connect(m_checker, &CheckController::staticCheckFailed, this,
          [this](const QString& e, const QString& path) {
            m_check.reset();
            m_error = e;
            m_errorPath = path;
            markError();
            emit validationFinished(false, m_error);
          });
  connect(m_checker, &CheckController::compileProgress, this, [this](int done, int total, const QString&) {
    m_progress = tr("compiling for %1: point %2 of %3 …").arg(device()).arg(done).arg(total);
    updateStatus();
  });
  connect(m_checker, &CheckController::compiledCheckAvailable, this, [this](const ReportPtr& r) {
    m_check = r;
    m_compiled = true;
    m_progress.clear();
    updateStatus();
    emit checkAvailable(r);
  });
  connect(m_checker, &CheckController::compileFailed, this, [this](const QString& why) {
    m_progress.clear();
    m_compileNote = why;
    updateStatus();
  });
  connect(m_checker, &CheckController::runningChanged, this, [this] { updateStatus(); });
}

bool ConfigPanel::openConfig(const QString& path) {
  // A config is a few KB; a text editor widget holding hundreds of MB is not useful.
  constexpr qint64 kMaxConfigBytes = qint64(16) << 20;
  const QFileInfo info(path);
  QFile f(path);
  if (info.isDir())
    m_loadError = tr("%1: is a directory, not a config").arg(path);
  else if (info.exists() && info.size() > kMaxConfigBytes)
    m_loadError = tr("%1: %2 MiB is larger than a config may be (16 MiB)").arg(path).arg(info.size() >> 20);
  else if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
    m_loadError = tr("%1: cannot open: %2").arg(path, f.errorString());
  else
    m_loadError.clear();
  if (!m_loadError.isEmpty()) {
    m_status->setText(m_loadError);
    return false;
  }
  m_path = path;
  m_fromReport = false;
  m_dir = QFileInfo(path).absolutePath();
  m_lastGood = ordered_json();
  m_savedText = QString::fromUtf8(f.readAll());
  setJsonText(m_savedText);
  setModified(false);
  return true;
}

bool ConfigPanel::save(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text | QIODevice::Truncate)) return false;
  // The text as shown, byte for byte: the file's key order and layout stay the author's.
  f.write(m_text->toPlainText().toUtf8());
  m_path = path;
  m_fromReport = false;
  m_dir = QFileInfo(path).absolutePath();
  m_savedText = m_text->toPlainText();
  setModified(false);
  return true;
}

void ConfigPanel::setModified(bool modified) {
  if (modified == m_modified) return;
  m_modified = modified;
  emit modifiedChanged(modified);
}

void ConfigPanel::setJsonText(const QString& text) {
  m_updating = true;
  m_text->setPlainText(text);
  m_updating = false;
  m_debounce->stop();
  setModified(!m_path.isEmpty() && text != m_savedText);
  parseText();
}

void ConfigPanel::parseText() {
  try {
    // Depth-limited (json_text.h, kMaxJsonDepth): a hostile config cannot exhaust the
    // stack; then read again keeping the author's key order for the form and the text.
    (void)parseJson(m_text->toPlainText().toStdString());
    m_doc = ordered_json::parse(m_text->toPlainText().toStdString());
  } catch (const std::exception& e) {  // syntax, nesting, a number out of range (1e400)
    QString what = QString::fromUtf8(e.what());
    what.remove(QRegularExpression(QStringLiteral("^\\[json\\.exception\\.[a-z_]+\\.\\d+\\] ")));
    m_error = tr("JSON syntax: %1").arg(what);
    m_errorPath.clear();
    m_doc = ordered_json::object();
    m_form->clear();
    m_check.reset();
    m_checker->cancel();
    markError();
    emit validationFinished(false, m_error);
    return;
  }
  m_updating = true;
  try {
    fillConfigForm(m_form, m_doc);
  } catch (const std::exception&) {
    // A value of an unexpected type: the form shows what it could, validation names the path.
  }
  m_updating = false;
  validate();
}

QString ConfigPanel::jsonText() const { return m_text->toPlainText(); }

QString ConfigPanel::resolveDir(const ordered_json& doc, const QString& fallback) const {
  // A report's config names its source relative to where it ran: look where the
  // Source view looks (the report's folder, the zoo's kernels/ folders).
  if (!doc.is_object() || !doc.contains("kernel") || !doc["kernel"].is_object()) return fallback;
  const std::string source = doc["kernel"].value("source", std::string());
  if (source.empty() || QFileInfo(qs(source)).isAbsolute()) return fallback;
  QStringList dirs{fallback};
  dirs << m_sourceDirs;
  for (const QString& d : std::as_const(dirs))
    if (!d.isEmpty() && QFileInfo(QDir(d).filePath(qs(source))).isFile()) return d;
  return fallback;
}

void ConfigPanel::setDocument(const ordered_json& doc, const QString& dir) {
  m_dir = resolveDir(doc, dir);
  m_lastGood = ordered_json();  // another config: its edits are measured from its own first good check
  m_savedText = qs(doc.dump(2));
  setJsonText(m_savedText);
}

bool ConfigPanel::setFormValue(const QString& jsonPath, const QString& text) {
  if (jsonPath.isEmpty() || !m_doc.is_object()) return false;
  try {
    m_doc[configPointer(jsonPath)] = configValueFromText(text);
  } catch (const std::exception&) {
    return false;  // the path runs through a value that is not an object or array
  }
  m_updating = true;
  m_text->setPlainText(qs(m_doc.dump(2)));  // ordered: the keys stay where the author put them
  if (QTreeWidgetItem* item = formItem(jsonPath)) item->setText(1, text);
  m_updating = false;
  setModified(!m_path.isEmpty() && m_text->toPlainText() != m_savedText);
  emit edited();
  validate();
  return true;
}

QTreeWidgetItem* ConfigPanel::formItem(const QString& jsonPath) const {
  for (QTreeWidgetItemIterator it(m_form); *it; ++it)
    if ((*it)->data(0, kConfigPathRole).toString() == jsonPath) return *it;
  return nullptr;
}

void ConfigPanel::validate() {
  m_error.clear();
  m_errorPath.clear();
  m_compiled = false;
  m_progress.clear();
  m_compileNote.clear();
  Config cfg;
  try {
    cfg = parseConfig(nlohmann::json::parse(m_doc.dump()), m_dir.toStdString());
  } catch (const ConfigError& e) {
    m_errorPath = qs(e.path);
    m_error = QStringLiteral("%1: %2").arg(m_errorPath, qs(e.problem));
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
  }
  if (!m_error.isEmpty()) {
    m_check.reset();
    m_checker->cancel();
    markError();
    emit validationFinished(false, m_error);
    return;
  }
  // Expressions evaluate, launch limits and tiles are checked, the kernel compiles: in
  // the background (CheckController), the answers arrive as signals.
  const QString file = m_fromReport || m_path.isEmpty() ? QString() : m_path;
  m_checker->start(cfg, device(), file, m_text->toPlainText());
  markError();
}

void ConfigPanel::recheck() {
  m_debounce->stop();
  parseText();
}

bool ConfigPanel::isChecking() const { return m_debounce->isActive() || m_checker->isRunning(); }

QString ConfigPanel::device() const { return m_device->currentText(); }

void ConfigPanel::setDevice(const QString& key) {
  const int i = m_device->findText(key, Qt::MatchFixedString);
  if (i >= 0) m_device->setCurrentIndex(i);
}

void ConfigPanel::markError() {
  // Setting a tooltip or a brush emits itemChanged: without the guard each mark
  // re-entered validation (73 s on a config the CLI checks in 1.7 s).
  const bool was = m_updating;
  m_updating = true;
  {
    const QSignalBlocker block(m_form);
    // Red: the field to change, which is not always the key that failed (configfault.h).
    m_faultPaths = configFaultPaths(m_errorPath, m_doc, m_lastGood);
    const QString key = configKeyOf(m_errorPath);
    const QString why = key.isEmpty() || m_faultPaths == QStringList{key}
                            ? m_error
                            : tr("%1\n(%2 = %3)").arg(m_error, key, configExpressionAt(m_errorPath, m_doc));
    for (QTreeWidgetItemIterator it(m_form); *it; ++it) {
      const QString path = (*it)->data(0, kConfigPathRole).toString();
      // An error at tensors.C.shape[1] belongs to the item tensors.C.shape.
      const bool bad =
          !path.isEmpty() && std::any_of(m_faultPaths.begin(), m_faultPaths.end(), [&](const QString& f) {
            return f == path || f.startsWith(path + QLatin1Char('[')) ||
                   f.startsWith(path + QLatin1Char('.'));
          });
      (*it)->setBackground(1, bad ? QBrush(QColor(0xff, 0x52, 0x52, 80)) : QBrush());
      (*it)->setToolTip(1, bad ? why : path == key ? m_error : QString());
    }
  }
  m_form->viewport()->update();
  m_updating = was;
  updateStatus();
}

QString ConfigPanel::compiledSummary() const {
  // What the compiled check found, as the CLI's summary would lead with it.
  if (!m_check) return {};
  int failed = 0;
  std::int64_t regsMin = -1, regsMax = -1, spills = 0;
  QString firstError;
  for (const Point& p : m_check->points) {
    if (p.compile.attempted && !p.compile.ok) {
      ++failed;
      for (const Finding& f : p.findings)
        if (firstError.isEmpty() && f.category == "compile_error") firstError = qs(f.message);
    }
    if (p.compile.ok && p.compile.regs >= 0) {
      regsMin = regsMin < 0 ? p.compile.regs : std::min<std::int64_t>(regsMin, p.compile.regs);
      regsMax = std::max<std::int64_t>(regsMax, p.compile.regs);
      spills +=
          std::max<std::int64_t>(0, p.compile.spillStores) + std::max<std::int64_t>(0, p.compile.spillLoads);
    }
  }
  if (failed > 0)
    return tr("\u2716 does not compile (%1 of %2 point(s)): %3")
        .arg(failed)
        .arg(m_check->points.size())
        .arg(firstError.left(300));
  if (regsMax < 0) {
    const std::string log = m_check->points.empty() ? std::string() : m_check->points.front().compile.log;
    return tr("\u2714 checked; the kernel was not compiled: %1").arg(qs(log).left(200));
  }
  const QString regs =
      regsMin == regsMax ? QString::number(regsMax) : QStringLiteral("%1–%2").arg(regsMin).arg(regsMax);
  return tr("\u2714 compiled for %1: %2 registers/thread, %3")
      .arg(qs(m_check->device.name), regs,
           spills > 0 ? tr("\u26a0 %1 bytes of register spills").arg(spills) : tr("no spills"));
}

void ConfigPanel::updateStatus() {
  QString text;
  QString colour;
  if (!m_error.isEmpty() && m_fromReport && m_errorPath == QLatin1String("kernel.source")) {
    // A report's config read where its kernel source is not: nothing is wrong with the report.
    text =
        tr("\u2139 The config this report ran with; its kernel source is not here. Open the .tscfg.json to "
           "check, edit or run it.");
  } else if (!m_error.isEmpty()) {
    colour = QStringLiteral("#a02c00");  // dark vermillion: >= 4.5:1 on the window colour
    text = m_error;
  } else if (m_doc.is_object() && !m_doc.empty()) {
    text = tr("\u2714 valid config%1")
               .arg(m_path.isEmpty() || m_fromReport ? QString() : QStringLiteral(": ") + m_path);
    if (m_compiled) {
      const QString c = compiledSummary();
      if (c.startsWith(QStringLiteral("\u2716"))) colour = QStringLiteral("#a02c00");
      text += QLatin1Char('\n') + c;
    } else if (!m_progress.isEmpty()) {
      text += QLatin1Char('\n') + m_progress;
    } else if (m_checker->isRunning()) {
      text += QLatin1Char('\n') + tr("checking …");
    } else if (!m_compileNote.isEmpty()) {
      text += QLatin1Char('\n') + tr("\u26a0 not compiled: %1").arg(m_compileNote);
    } else if (m_fromReport || m_path.isEmpty()) {
      text += QLatin1Char('\n') + tr("declared tiles only: save the config to compile it");
    }
  } else {
    text = tr("No config");
  }
  m_status->setStyleSheet(colour.isEmpty() ? QString() : QStringLiteral("color: %1").arg(colour));
  m_status->setText(text);
}

QString ConfigPanel::statusText() const { return m_status->text(); }

void ConfigPanel::onReportLoaded(const ReportPtr& report) {
  // A config opened by the user stays: the report's config is shown only when none is open.
  if (!m_path.isEmpty() || !report || report->config.is_null()) return;
  m_fromReport = true;
  setDocument(ordered_json::parse(report->config.dump()), m_dir);
}

void ConfigPanel::onReportClosed() {}

void ConfigPanel::onSelectionChanged(const SelectionState&) {}

}  // namespace tilescope::ui
