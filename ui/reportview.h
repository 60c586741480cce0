// The observer interface every panel implements (RenderDoc's ICaptureViewer):
// the main window hands each panel the immutable report snapshot and the shared selection.
#pragma once

#include <memory>

#include "selection.h"
#include "tilescope/model/report.h"

namespace tilescope::ui {

using ReportPtr = std::shared_ptr<const tilescope::Report>;

class ReportView {
 public:
  virtual ~ReportView() = default;
  virtual void onReportLoaded(const ReportPtr& report) = 0;
  virtual void onReportClosed() = 0;
  virtual void onSelectionChanged(const SelectionState& state) = 0;
};

}  // namespace tilescope::ui
