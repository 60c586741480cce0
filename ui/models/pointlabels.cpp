#include "models/pointlabels.h"

#include <QRegularExpression>
#include <algorithm>

#include "models/qtconv.h"

namespace tilescope::ui {

namespace {
/// Longer own labels ("BLOCK_M=64 BLOCK_N=32 ...") squeeze a matrix cell to "sl…".
constexpr int kMaxOwnLabel = 20;

QString valueText(const nlohmann::json& v) {
  if (v.is_string()) return qs(v.get<std::string>());
  return qs(v.dump());
}
}  // namespace

PointLabels::PointLabels(const std::vector<Point>& points) {
  for (const Point& p : points) add(p);
}

nlohmann::json PointLabels::valuesOf(const Point& p) {
  nlohmann::json v = nlohmann::json::object();
  if (p.params.is_object())
    for (const auto& [k, x] : p.params.items()) v[k] = x;
  if (p.defines.is_object())
    for (const auto& [k, x] : p.defines.items()) v[k] = x;  // a define wins over a param of the same name
  return v;
}

std::vector<std::string> PointLabels::labelOrder(const Point& p) {
  // The sweep writes labels in its own key order ("BLOCK_M=64 BLOCK_N=32", or with commas); the
  // defines object is sorted by name, which reads worse (BLOCK_K before BLOCK_M).
  std::vector<std::string> order;
  static const QRegularExpression separators(QStringLiteral("[\\s,;]+"));
  const QStringList words = qs(p.label).split(separators, Qt::SkipEmptyParts);
  for (const QString& w : words)
    if (const qsizetype eq = w.indexOf(QLatin1Char('=')); eq > 0) order.push_back(w.left(eq).toStdString());
  return order;
}

bool PointLabels::add(const Point& p) {
  if (!p.experiment.empty()) return false;  // diagnose captures are named by their experiment
  const nlohmann::json v = valuesOf(p);
  if (!m_any) {
    m_any = true;
    m_first = v;
    m_order = labelOrder(p);
    for (const auto& [k, x] : v.items())
      if (std::find(m_order.begin(), m_order.end(), k) == m_order.end()) m_order.push_back(k);
    return false;
  }
  bool changed = false;
  auto swept = [this](const std::string& k) {
    return std::find(m_keys.begin(), m_keys.end(), k) != m_keys.end();
  };
  for (const auto& [k, x] : v.items()) {
    if (swept(k)) continue;
    const auto f = m_first.find(k);
    if (f != m_first.end() && *f == x) continue;
    if (std::find(m_order.begin(), m_order.end(), k) == m_order.end()) m_order.push_back(k);
    m_keys.push_back(k);
    changed = true;
  }
  // A key the first point had and this one lacks is swept too.
  for (const auto& [k, x] : m_first.items())
    if (!v.contains(k) && !swept(k)) {
      m_keys.push_back(k);
      changed = true;
    }
  if (changed)
    std::stable_sort(m_keys.begin(), m_keys.end(), [this](const std::string& a, const std::string& b) {
      return std::find(m_order.begin(), m_order.end(), a) < std::find(m_order.begin(), m_order.end(), b);
    });
  return changed;
}

QStringList PointLabels::keys() const {
  QStringList out;
  for (const std::string& k : m_keys) out << qs(k);
  return out;
}

QString PointLabels::shortLabel(const Point& p) const {
  if (!p.experiment.empty())
    return qs(p.experiment) + (p.label.empty() ? QString() : QStringLiteral(" [%1]").arg(qs(p.label)));
  if (m_keys.empty()) {
    const QString own = qs(p.label);
    return !own.isEmpty() && own.size() <= kMaxOwnLabel ? own : QStringLiteral("#%1").arg(p.index);
  }
  const nlohmann::json v = valuesOf(p);
  QStringList parts;
  for (const std::string& k : m_keys) {
    const auto it = v.find(k);
    parts << (it == v.end() ? QStringLiteral("-") : valueText(*it));
  }
  return parts.join(QStringLiteral(", "));
}

QString PointLabels::fullLabel(const Point& p) {
  if (!p.label.empty())
    return qs(p.label) + (p.experiment.empty() ? QString() : QStringLiteral(" (%1)").arg(qs(p.experiment)));
  QStringList parts;
  const nlohmann::json all = valuesOf(p);  // items() of a temporary would dangle
  for (const auto& [k, x] : all.items()) parts << QStringLiteral("%1=%2").arg(qs(k), valueText(x));
  const QString values = parts.join(QLatin1Char(' '));
  return p.experiment.empty() ? values : QStringLiteral("%1: %2").arg(qs(p.experiment), values);
}

std::vector<nlohmann::json> PointLabels::sortKey(const Point& p) const {
  std::vector<nlohmann::json> out;
  if (!p.experiment.empty()) {
    out.emplace_back(p.experiment);
    return out;
  }
  const nlohmann::json v = valuesOf(p);
  for (const std::string& k : m_keys) out.push_back(v.value(k, nlohmann::json()));
  out.emplace_back(p.index);
  return out;
}

}  // namespace tilescope::ui
