#include "panels/configform.h"

#include <QTreeWidget>

#include "models/qtconv.h"

namespace tilescope::ui {

using nlohmann::ordered_json;

ordered_json::json_pointer configPointer(const QString& path) {
  std::string ptr;
  for (const QString& part : path.split(QLatin1Char('.'))) {
    const qsizetype br = part.indexOf(QLatin1Char('['));
    const QString key = br >= 0 ? part.left(br) : part;
    ptr += "/" + key.toStdString();
    if (br >= 0) ptr += "/" + part.mid(br + 1).chopped(1).toStdString();
  }
  return ordered_json::json_pointer(ptr);
}

ordered_json configValueFromText(const QString& text) {
  bool ok = false;
  const qlonglong i = text.trimmed().toLongLong(&ok);
  if (ok) return ordered_json(static_cast<std::int64_t>(i));
  const std::string s = text.trimmed().toStdString();
  ordered_json j = ordered_json::parse(s, nullptr, false);
  if (!j.is_discarded() && (j.is_array() || j.is_number() || j.is_boolean())) return j;
  return ordered_json(s);
}

QString configValueText(const ordered_json& j) {
  return j.is_string() ? qs(j.get<std::string>()) : qs(j.dump());
}

namespace {

QTreeWidgetItem* section(QTreeWidget* form, const QString& title) {
  auto* s = new QTreeWidgetItem(form, {title});
  s->setFirstColumnSpanned(true);
  s->setExpanded(true);
  return s;
}

void field(QTreeWidgetItem* parent, const QString& name, const ordered_json& value, const QString& path) {
  auto* item = new QTreeWidgetItem(parent, {name, configValueText(value)});
  item->setData(0, kConfigPathRole, path);
  item->setFlags(item->flags() | Qt::ItemIsEditable);
}

void objectFields(QTreeWidget* form, const QString& title, const ordered_json& obj, const QString& prefix) {
  if (!obj.is_object()) return;
  QTreeWidgetItem* s = section(form, title);
  for (auto it = obj.begin(); it != obj.end(); ++it)
    field(s, qs(it.key()), it.value(), prefix + qs(it.key()));
}

ordered_json member(const ordered_json& doc, const char* key) {
  return doc.is_object() && doc.contains(key) ? doc[key] : ordered_json();
}

void kernelFields(QTreeWidget* form, const ordered_json& kernel) {
  const bool python = kernel.contains("language") && kernel["language"].is_string() &&
                      (kernel["language"] == "triton" || kernel["language"] == "tilelang");
  QTreeWidgetItem* k = section(form, QObject::tr("Kernel"));
  for (const char* key : {"language", "source", "entry", "compiler"})
    if (kernel.contains(key))
      field(k, QString::fromLatin1(key), kernel[key], QStringLiteral("kernel.") + QString::fromLatin1(key));
  if (python) {
    // The launch knobs of a Triton kernel, shown with their defaults when the config leaves them out.
    const std::pair<const char*, int> knobs[] = {{"num_warps", 4}, {"num_stages", 3}, {"num_ctas", 1}};
    if (kernel["language"] == "triton")
      for (const auto& [key, fallback] : knobs)
        field(k, QString::fromLatin1(key), kernel.contains(key) ? kernel[key] : ordered_json(fallback),
              QStringLiteral("kernel.") + QString::fromLatin1(key));
    objectFields(form, QObject::tr("Constexprs (tile parameters)"), member(kernel, "constexprs"),
                 QStringLiteral("kernel.constexprs."));
  } else {
    objectFields(form, QObject::tr("Defines (tile parameters)"), member(kernel, "defines"),
                 QStringLiteral("kernel.defines."));
  }
}

}  // namespace

void fillConfigForm(QTreeWidget* form, const ordered_json& doc) {
  form->clear();
  if (!doc.is_object()) return;
  const ordered_json kernel =
      doc.contains("kernel") && doc["kernel"].is_object() ? doc["kernel"] : ordered_json::object();
  kernelFields(form, kernel);
  objectFields(form, QObject::tr("Params"), member(doc, "params"), QStringLiteral("params."));
  if (doc.contains("tensors") && doc["tensors"].is_object()) {
    QTreeWidgetItem* s = section(form, QObject::tr("Tensor shapes"));
    for (auto it = doc["tensors"].begin(); it != doc["tensors"].end(); ++it)
      if (it.value().is_object() && it.value().contains("shape"))
        field(s, qs(it.key()), it.value()["shape"], QStringLiteral("tensors.%1.shape").arg(qs(it.key())));
  }
  objectFields(form, QObject::tr("Launch"), member(doc, "launch"), QStringLiteral("launch."));
  if (doc.contains("tiles") && doc["tiles"].is_object()) {
    QTreeWidgetItem* s = section(form, QObject::tr("Tiles"));
    for (auto it = doc["tiles"].begin(); it != doc["tiles"].end(); ++it)
      for (const char* key : {"tile", "origin"})
        if (it.value().is_object() && it.value().contains(key))
          field(s, QStringLiteral("%1.%2").arg(qs(it.key()), QString::fromLatin1(key)), it.value()[key],
                QStringLiteral("tiles.%1.%2").arg(qs(it.key()), QString::fromLatin1(key)));
  }
  objectFields(form, QObject::tr("Sweep"), member(doc, "sweep"), QStringLiteral("sweep."));
}

}  // namespace tilescope::ui
