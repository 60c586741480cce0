// PointLabels: the names every view gives a report's points (point_labels.h).
#include "tilescope/model/point_labels.h"

#include <algorithm>

namespace tilescope {

namespace {

/// Longer own labels ("BLOCK_M=64 BLOCK_N=32 ...") squeeze a matrix cell to "sl…".
constexpr std::size_t kMaxOwnLabel = 20;

std::string valueText(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

bool separator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';'; }

/// `a` before `b` when `a` comes first in `order` (keys not in it last).
auto byOrder(const std::vector<std::string>& order) {
  return [&order](const std::string& a, const std::string& b) {
    return std::find(order.begin(), order.end(), a) < std::find(order.begin(), order.end(), b);
  };
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
  const std::string& s = p.label;
  for (std::size_t i = 0; i < s.size();) {
    while (i < s.size() && separator(s[i])) ++i;
    std::size_t end = i;
    while (end < s.size() && !separator(s[end])) ++end;
    const std::size_t eq = s.find('=', i);
    if (eq != std::string::npos && eq > i && eq < end) order.push_back(s.substr(i, eq - i));
    i = end;
  }
  return order;
}

bool PointLabels::swept(const std::string& key) const {
  return std::find(m_keys.begin(), m_keys.end(), key) != m_keys.end();
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
  if (changed) std::stable_sort(m_keys.begin(), m_keys.end(), byOrder(m_order));
  return changed;
}

std::string PointLabels::keysText() const {
  std::string out;
  for (const std::string& k : m_keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

std::string PointLabels::shortLabel(const Point& p) const {
  if (!p.experiment.empty()) return p.experiment + (p.label.empty() ? "" : " [" + p.label + "]");
  if (m_keys.empty())
    return !p.label.empty() && p.label.size() <= kMaxOwnLabel ? p.label : "#" + std::to_string(p.index);
  const nlohmann::json v = valuesOf(p);
  std::string out;
  for (const std::string& k : m_keys) {
    const auto it = v.find(k);
    out += (out.empty() ? "" : ", ") + (it == v.end() ? std::string("-") : valueText(*it));
  }
  return out;
}

std::string PointLabels::fullLabel(const Point& p) {
  if (!p.label.empty()) return p.label + (p.experiment.empty() ? "" : " (" + p.experiment + ")");
  std::string values;
  const nlohmann::json all = valuesOf(p);  // items() of a temporary would dangle
  for (const auto& [k, x] : all.items()) values += (values.empty() ? "" : " ") + k + "=" + valueText(x);
  return p.experiment.empty() ? values : p.experiment + ": " + values;
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

}  // namespace tilescope
