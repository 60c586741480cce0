#include "panels/configpanel.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "controllers/configcheck.h"
#include "models/qtconv.h"
#include "tilescope/config/config.h"
#include "tilescope/model/report.h"

namespace tilescope::ui {

using nlohmann::json;

namespace {
constexpr int kPathRole = Qt::UserRole + 1;

/// nlohmann's json_pointer for a dotted path with [i] indices ("tensors.C.shape[1]").
json::json_pointer pointerFor(const QString& path) {
  std::string ptr;
  for (QString part : path.split(QLatin1Char('.'))) {
    const int br = part.indexOf(QLatin1Char('['));
    const QString key = br >= 0 ? part.left(br) : part;
    ptr += "/" + key.toStdString();
    if (br >= 0) ptr += "/" + part.mid(br + 1).chopped(1).toStdString();
  }
  return json::json_pointer(ptr);
}

/// A typed form edit: an integer stays an integer, JSON arrays/numbers parse, the rest is a string.
json valueFromText(const QString& text) {
  bool ok = false;
  const qlonglong i = text.trimmed().toLongLong(&ok);
  if (ok) return json(static_cast<std::int64_t>(i));
  const std::string s = text.trimmed().toStdString();
  json j = json::parse(s, nullptr, false);
  if (!j.is_discarded() && (j.is_array() || j.is_number() || j.is_boolean())) return j;
  return json(s);
}

QString textOf(const json& j) { return j.is_string() ? qs(j.get<std::string>()) : qs(j.dump()); }
}  // namespace

ConfigPanel::ConfigPanel(Selection* selection, QWidget* parent) : QWidget(parent), m_selection(selection) {
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
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_device = new QComboBox(this);
  m_device->addItems(checkDeviceKeys());
  setDevice(QStringLiteral("h100"));
  m_device->setToolTip(
      tr("The device of the database a config is checked against (launch limits, shared memory, occupancy)"));
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

  connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
    if (!m_updating) m_debounce->start();
  });
  connect(m_debounce, &QTimer::timeout, this, &ConfigPanel::parseText);
  connect(m_device, &QComboBox::currentTextChanged, this, [this] {
    if (!m_updating && m_doc.is_object() && !m_doc.empty()) validate();
  });
  connect(m_form, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (m_updating || column != 1) return;
    setFormValue(item->data(0, kPathRole).toString(), item->text(1));
  });
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
  setJsonText(QString::fromUtf8(f.readAll()));
  return true;
}

bool ConfigPanel::save(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text | QIODevice::Truncate)) return false;
  f.write(m_text->toPlainText().toUtf8());
  m_path = path;
  m_dir = QFileInfo(path).absolutePath();
  return true;
}

void ConfigPanel::setJsonText(const QString& text) {
  m_updating = true;
  m_text->setPlainText(text);
  m_updating = false;
  m_debounce->stop();
  parseText();
}

void ConfigPanel::parseText() {
  try {
    // Depth-limited: a hostile config cannot exhaust the stack (report.h, kMaxJsonDepth).
    m_doc = parseJson(m_text->toPlainText().toStdString());
  } catch (const std::exception& e) {  // syntax, nesting, a number out of range (1e400)
    QString what = QString::fromUtf8(e.what());
    what.remove(QRegularExpression(QStringLiteral("^\\[json\\.exception\\.[a-z_]+\\.\\d+\\] ")));
    m_error = tr("JSON syntax: %1").arg(what);
    m_errorPath.clear();
    m_doc = json::object();
    m_form->clear();
    m_check.reset();
    markError();
    return;
  }
  try {
    rebuildForm();
  } catch (const std::exception&) {
    // A value of an unexpected type: the form shows what it could, validation names the path.
    m_updating = false;
  }
  validate();
}

QString ConfigPanel::jsonText() const { return m_text->toPlainText(); }

void ConfigPanel::setDocument(const json& doc, const QString& dir) {
  m_dir = dir;
  setJsonText(qs(doc.dump(2)));
}

bool ConfigPanel::setFormValue(const QString& jsonPath, const QString& text) {
  if (jsonPath.isEmpty() || !m_doc.is_object()) return false;
  try {
    m_doc[pointerFor(jsonPath)] = valueFromText(text);
  } catch (const std::exception&) {
    return false;  // the path runs through a value that is not an object or array
  }
  m_updating = true;
  m_text->setPlainText(qs(m_doc.dump(2)));
  if (QTreeWidgetItem* item = formItem(jsonPath)) item->setText(1, text);
  m_updating = false;
  validate();
  return true;
}

QTreeWidgetItem* ConfigPanel::formItem(const QString& jsonPath) const {
  for (QTreeWidgetItemIterator it(m_form); *it; ++it)
    if ((*it)->data(0, kPathRole).toString() == jsonPath) return *it;
  return nullptr;
}

void ConfigPanel::rebuildForm() {
  m_updating = true;
  m_form->clear();
  auto section = [this](const QString& title) {
    auto* s = new QTreeWidgetItem(m_form, {title});
    s->setFirstColumnSpanned(true);
    s->setExpanded(true);
    return s;
  };
  auto field = [](QTreeWidgetItem* parent, const QString& name, const json& value, const QString& path) {
    auto* item = new QTreeWidgetItem(parent, {name, textOf(value)});
    item->setData(0, kPathRole, path);
    item->setFlags(item->flags() | Qt::ItemIsEditable);
  };
  auto objectFields = [&](const char* title, const json& obj, const QString& prefix) {
    if (!obj.is_object()) return;
    QTreeWidgetItem* s = section(tr(title));
    for (auto it = obj.begin(); it != obj.end(); ++it)
      field(s, qs(it.key()), it.value(), prefix + qs(it.key()));
  };
  if (m_doc.is_object()) {
    const json kernel =
        m_doc.contains("kernel") && m_doc["kernel"].is_object() ? m_doc["kernel"] : json::object();
    QTreeWidgetItem* k = section(tr("Kernel"));
    for (const char* key : {"source", "entry", "compiler"})
      if (kernel.contains(key))
        field(k, QString::fromLatin1(key), kernel[key], QStringLiteral("kernel.") + QString::fromLatin1(key));
    objectFields("Defines (tile parameters)", kernel.value("defines", json()),
                 QStringLiteral("kernel.defines."));
    auto member = [this](const char* key) { return m_doc.contains(key) ? m_doc[key] : json(); };
    objectFields("Params", member("params"), QStringLiteral("params."));
    if (m_doc.contains("tensors") && m_doc["tensors"].is_object()) {
      QTreeWidgetItem* s = section(tr("Tensor shapes"));
      for (auto it = m_doc["tensors"].begin(); it != m_doc["tensors"].end(); ++it)
        if (it.value().is_object() && it.value().contains("shape"))
          field(s, qs(it.key()), it.value()["shape"], QStringLiteral("tensors.%1.shape").arg(qs(it.key())));
    }
    objectFields("Launch", member("launch"), QStringLiteral("launch."));
    if (m_doc.contains("tiles") && m_doc["tiles"].is_object()) {
      QTreeWidgetItem* s = section(tr("Tiles"));
      for (auto it = m_doc["tiles"].begin(); it != m_doc["tiles"].end(); ++it)
        for (const char* key : {"tile", "origin"})
          if (it.value().is_object() && it.value().contains(key))
            field(s, QStringLiteral("%1.%2").arg(qs(it.key()), QString::fromLatin1(key)), it.value()[key],
                  QStringLiteral("tiles.%1.%2").arg(qs(it.key()), QString::fromLatin1(key)));
    }
    objectFields("Sweep", member("sweep"), QStringLiteral("sweep."));
  }
  m_updating = false;
}

void ConfigPanel::validate() {
  m_error.clear();
  m_errorPath.clear();
  m_check.reset();
  try {
    const Config cfg = parseConfig(m_doc, m_dir.toStdString());
    // Expressions only fail on evaluation (unknown symbol, division by zero), and a
    // launch the selected device refuses (a 2048-thread block) is invalid too: the
    // static analysis of the sweep points answers both.
    const ConfigCheck check = checkConfig(cfg, device());
    m_check = check.report;
    m_error = check.error;
    m_errorPath = check.errorPath;
  } catch (const ConfigError& e) {
    m_errorPath = qs(e.path);
    m_error = QStringLiteral("%1: %2").arg(m_errorPath, qs(e.problem));
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
  }
  markError();
  if (m_check) emit checkAvailable(m_check);
}

QString ConfigPanel::device() const { return m_device->currentText(); }

void ConfigPanel::setDevice(const QString& key) {
  const int i = m_device->findText(key, Qt::MatchFixedString);
  if (i >= 0) m_device->setCurrentIndex(i);
}

void ConfigPanel::markError() {
  for (QTreeWidgetItemIterator it(m_form); *it; ++it) {
    const QString path = (*it)->data(0, kPathRole).toString();
    // An error at tensors.C.shape[1] belongs to the item tensors.C.shape.
    const bool bad = !m_errorPath.isEmpty() && !path.isEmpty() &&
                     (m_errorPath == path || m_errorPath.startsWith(path + QLatin1Char('[')) ||
                      m_errorPath.startsWith(path + QLatin1Char('.')));
    (*it)->setBackground(1, bad ? QBrush(QColor(0xff, 0x52, 0x52, 80)) : QBrush());
    (*it)->setToolTip(1, bad ? m_error : QString());
  }
  if (m_error.isEmpty()) {
    m_status->setStyleSheet(QString());
    m_status->setText(
        tr("\u2714 valid config%1").arg(m_path.isEmpty() ? QString() : QStringLiteral(": ") + m_path));
  } else if (m_fromReport && m_errorPath == QLatin1String("kernel.source")) {
    // A report's config read where its kernel source is not: nothing is wrong with the report.
    m_status->setStyleSheet(QString());
    m_status->setText(
        tr("\u2139 The config this report ran with; its kernel source is not here. Open the .tscfg.json to "
           "check, "
           "edit or run it."));
  } else {
    m_status->setStyleSheet(
        QStringLiteral("color: #a02c00"));  // dark vermillion: >= 4.5:1 on the window colour
    m_status->setText(m_error);
  }
  emit validationFinished(m_error.isEmpty(), m_error);
}

QString ConfigPanel::statusText() const { return m_status->text(); }

void ConfigPanel::onReportLoaded(const ReportPtr& report) {
  // A config opened by the user stays: the report's config is shown only when none is open.
  if (!m_path.isEmpty() || !report || report->config.is_null()) return;
  m_fromReport = true;
  setDocument(report->config, m_dir);
}

void ConfigPanel::onReportClosed() {}

void ConfigPanel::onSelectionChanged(const SelectionState&) {}

}  // namespace tilescope::ui
