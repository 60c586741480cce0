#include "models/pointlabels.h"

#include "models/qtconv.h"

namespace tilescope::ui {

QStringList PointLabels::keys() const {
  QStringList out;
  for (const std::string& k : m_labels.keys()) out << qs(k);
  return out;
}

}  // namespace tilescope::ui
