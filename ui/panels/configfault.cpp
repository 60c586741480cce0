#include "panels/configfault.h"

#include <QRegularExpression>
#include <QSet>

#include "models/qtconv.h"
#include "panels/configform.h"

namespace tilescope::ui {

using nlohmann::ordered_json;

namespace {

const ordered_json* valueAt(const ordered_json& doc, const QString& path) {
  if (!doc.is_object() || path.isEmpty()) return nullptr;
  try {
    const auto ptr = configPointer(path);
    return doc.contains(ptr) ? &doc.at(ptr) : nullptr;
  } catch (const std::exception&) {
    return nullptr;  // an index into a value that is not an array
  }
}

QString expressionText(const ordered_json& j) {
  if (j.is_string()) return qs(j.get<std::string>());
  if (j.is_array()) {
    QStringList parts;
    for (const ordered_json& e : j) parts << expressionText(e);
    return parts.join(QStringLiteral(", "));
  }
  if (j.is_object()) {  // "launch": its grid and block (invalid_launch names the whole launch)
    QStringList parts;
    for (const char* key : {"grid", "block", "shared_bytes"})
      if (j.contains(key)) parts << expressionText(j[key]);
    return parts.join(QStringLiteral(", "));
  }
  return {};
}

/// The form paths of the names in `expression` that the config defines, in order, each once.
QStringList namedParameters(const QString& expression, const ordered_json& doc, bool tileOnly) {
  static const QRegularExpression ident(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
  QStringList out;
  for (auto it = ident.globalMatch(expression); it.hasNext();) {
    const QString name = it.next().captured();
    const QStringList prefixes =
        tileOnly ? QStringList{QStringLiteral("kernel.defines."), QStringLiteral("kernel.constexprs.")}
                 : QStringList{QStringLiteral("kernel.defines."), QStringLiteral("kernel.constexprs."),
                               QStringLiteral("params.")};
    for (const QString& prefix : prefixes) {
      const QString path = prefix + name;
      if (!out.contains(path) && valueAt(doc, path)) out << path;
    }
  }
  return out;
}

}  // namespace

QString configKeyOf(const QString& errorPath) {
  const qsizetype br = errorPath.indexOf(QLatin1Char('['));
  return br >= 0 ? errorPath.left(br) : errorPath;
}

QString configExpressionAt(const QString& errorPath, const ordered_json& doc) {
  const ordered_json* v = valueAt(doc, errorPath);
  if (!v) v = valueAt(doc, configKeyOf(errorPath));
  return v ? expressionText(*v) : QString();
}

QStringList configFaultPaths(const QString& errorPath, const ordered_json& doc,
                             const ordered_json& lastGood) {
  if (errorPath.isEmpty()) return {};
  const QString expression = configExpressionAt(errorPath, doc);
  const QStringList named = namedParameters(expression, doc, false);
  QStringList changed;
  for (const QString& path : named) {
    const ordered_json* before = valueAt(lastGood, path);
    if (before && *before != *valueAt(doc, path)) changed << path;
  }
  if (!changed.isEmpty()) return changed;
  // The key's own expression was edited (a grid typed wrong): the key is at fault.
  const QString key = configKeyOf(errorPath);
  const ordered_json* keyBefore = valueAt(lastGood, key);
  const ordered_json* keyNow = valueAt(doc, key);
  if (keyBefore && keyNow && *keyBefore != *keyNow) return {key};
  const QStringList tile = namedParameters(expression, doc, true);
  if (!tile.isEmpty()) return tile;
  return {key};
}

}  // namespace tilescope::ui
