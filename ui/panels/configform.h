// The Config panel's form: the settings a kernel author edits, one editable row
// per JSON value, each row knowing its JSON path (kPathRole). CUDA kernels show
// their defines; Triton and TileLang kernels their constexprs, num_warps,
// num_stages and num_ctas, the tile parameters of a Python kernel.
#pragma once

#include <QString>
#include <Qt>

#include <nlohmann/json.hpp>

class QTreeWidget;

namespace tilescope::ui {

inline constexpr int kConfigPathRole = Qt::UserRole + 1;

/// Clears `form` and fills it from a config document (whatever of it is an object).
void fillConfigForm(QTreeWidget* form, const nlohmann::ordered_json& doc);
/// A JSON value as the form shows it: a string bare, anything else as JSON.
QString configValueText(const nlohmann::ordered_json& j);
/// A typed form edit: an integer stays an integer, JSON arrays/numbers/booleans parse, the rest is a string.
nlohmann::ordered_json configValueFromText(const QString& text);
/// nlohmann's json_pointer for a dotted path with [i] indices ("tensors.C.shape[1]").
nlohmann::ordered_json::json_pointer configPointer(const QString& path);

}  // namespace tilescope::ui
