// `classify [LOGFILE|-]`: a pasted error log → finding category, detail, tree node
// (SPEC §2). Exit 0 when classified, 1 when no rule matched, 2 when the file is missing.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "tilescope/classify.h"

namespace tilescope::cli {

int cmdClassify(const std::string& input, bool json) {
  std::string text;
  if (input.empty() || input == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream in(input, std::ios::binary);
    if (!in) return usageError("cannot read log file '" + input + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  Classification c;
  try {
    c = classifyLog(text);
  } catch (const std::exception& e) {
    return usageError(std::string("classifier rules: ") + e.what());
  }
  if (json) {
    nlohmann::json j = {{"classified", c.known()}, {"category", c.category}, {"detail", c.detail},
                        {"tree_node", c.treeNode}, {"matched", c.matched}, {"confidence", c.confidence},
                        {"source", c.source},      {"rule", c.rule}};
    std::cout << j.dump(1) << '\n';
  } else if (c.known()) {
    std::cout << "category:   " << c.category << '\n'
              << "detail:     " << c.detail << '\n'
              << "source:     " << c.source << '\n'
              << "tree node:  " << c.treeNode << '\n'
              << "confidence: " << c.confidence << '\n'
              << "matched:    " << c.matched << '\n';
  } else {
    std::cout << "unknown: no classifier rule matched\n";
  }
  return c.known() ? kOk : kFindings;
}

}  // namespace tilescope::cli
