// openDocument: the one way the CLI (`export`, `check`) and the workbench open a
// file a person names. A config and a report are told apart by their schema;
// what is neither is read as the kind expected, so its error is that kind's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tilescope/export/open_document.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

const fs::path kZooConfig = fs::path(TILESCOPE_SOURCE_DIR) / "kernels" / "gemm" / "gemm_tiled_f16.tscfg.json";
const fs::path kReport = fs::path(TILESCOPE_TEST_DATA) / "reports" / "gemm_sweep.json";

class OpenDocument : public ::testing::Test {
 protected:
  fs::path m_dir = fs::temp_directory_path() / ("ts_open_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(m_dir); }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(m_dir / name) << text;
    return m_dir / name;
  }
  static std::string errorOf(const fs::path& p, DocumentKind assumed = DocumentKind::report) {
    try {
      (void)openDocument(p, assumed);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace

TEST_F(OpenDocument, ToldApartByTheirSchema) {
  const OpenedDocument report = openDocument(kReport);
  EXPECT_EQ(report.kind, DocumentKind::report);
  ASSERT_TRUE(report.report);
  EXPECT_EQ(*report.report, loadReport(kReport));
  // A config opens as one whichever kind was expected, and loads as loadConfig loads it.
  for (DocumentKind assumed : {DocumentKind::report, DocumentKind::config}) {
    const OpenedDocument cfg = openDocument(kZooConfig, assumed);
    EXPECT_EQ(cfg.kind, DocumentKind::config);
    EXPECT_FALSE(cfg.report);
    EXPECT_EQ(configToJson(loadConfigDocument(cfg)), configToJson(loadConfig(kZooConfig)));
  }
  EXPECT_EQ(openDocument(kReport, DocumentKind::config).kind, DocumentKind::report);
}

TEST_F(OpenDocument, WhatIsNeitherGetsTheExpectedKindsError) {
  const fs::path broken = write("broken.json", "{\n  \"schema\": tru\n}");
  EXPECT_EQ(errorOf(broken).rfind(broken.string() + ": line 2, column 16: invalid JSON: ", 0), 0u)
      << errorOf(broken);
  // Expected a config: the config loader says where, as `check` always did.
  const OpenedDocument asConfig = openDocument(broken, DocumentKind::config);
  ASSERT_EQ(asConfig.kind, DocumentKind::config);
  try {
    (void)loadConfigDocument(asConfig);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(broken.string() + ":2:", 0), 0u) << e.what();
  }
  const fs::path other = write("other.json", R"({"schema": "something/1"})");
  EXPECT_EQ(
      errorOf(other),
      other.string() + ": schema: not a report: schema is 'something/1', expected 'tilescope.report/1'");
  const fs::path number = write("number.json", "42");
  EXPECT_EQ(errorOf(number), number.string() + ": not a report: the document is an integer, not an object");
  const fs::path badReport = write("bad.json", R"({"schema": "tilescope.report/1", "points": 5})");
  EXPECT_EQ(errorOf(badReport), badReport.string() + ": points: expected an array, found an integer");
}

TEST_F(OpenDocument, FilesThatCannotBeReadSaySo) {
  EXPECT_EQ(errorOf(m_dir / "none.json"), (m_dir / "none.json").string() + ": cannot open (no such file)");
  EXPECT_EQ(errorOf(m_dir), m_dir.string() + ": is a directory, not a file");
  try {
    (void)openDocument(m_dir, DocumentKind::config);
    FAIL();
  } catch (const ConfigError& e) {  // as loadConfig throws
    EXPECT_EQ(e.path, m_dir.string());
    EXPECT_EQ(e.problem, "is a directory, not a file");
  }
  // A config is read with its own size limit, a report with the report's.
  const fs::path big = write("big.json", std::string(ConfigLimits::kMaxFileBytes + 1, ' '));
  EXPECT_NE(errorOf(big, DocumentKind::config).find("over the limit"), std::string::npos);
  EXPECT_EQ(errorOf(big).find("over the limit"), std::string::npos) << errorOf(big);
}
