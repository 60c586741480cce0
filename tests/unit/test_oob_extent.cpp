// oobElements: how far an out-of-bounds finding's evidence reaches.
#include <gtest/gtest.h>

#include "tilescope/analysis/oob_extent.h"

using namespace tilescope;

namespace {
Finding guardFinding(nlohmann::json evidence) {
  Finding f;
  f.category = "oob_write";
  f.tensor = "C";
  f.evidence = std::move(evidence);
  return f;
}
const nlohmann::json kZone = {{"guard_zone", "after"},
                              {"first_byte", 2000000},
                              {"last_byte", 2048047},
                              {"tensor_bytes", 2000000},
                              {"elements_changed", 24024}};
}  // namespace

TEST(OobExtent, GuardZoneRunOfItsOwnFinding) {
  const auto e = guardZoneElements(guardFinding(kZone), {1000, 1000});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, (Index{1000, 0}));
  EXPECT_EQ(e->last, (Index{1024, 23}));
  EXPECT_EQ(elementCount(*e, {1000, 1000}), 24024);
}

TEST(OobExtent, ATracedFindingKeepsTheGuardZoneInItsEvidence) {
  Finding f = guardFinding({{"source", "trace"}, {"guard_zone", kZone}});
  f.location.elements = ElementRange{{1000, 0}, {1000, 0}, {}, {}, ""};
  const auto e = oobElements(f, {1000, 1000});
  ASSERT_TRUE(e);
  EXPECT_EQ(elementCount(*e, {1000, 1000}), 24024);
}

TEST(OobExtent, TheLocatedRangeWinsWhereItHoldsAsMuch) {
  Finding f = guardFinding(kZone);
  f.location.elements = ElementRange{{1000, 0}, {1024, 23}, {}, {}, "rows 1000..1024"};
  EXPECT_EQ(oobElements(f, {1000, 1000})->text, "rows 1000..1024");
}

TEST(OobExtent, BeforeTheStartAndVectors) {
  // 8 f32 elements before a [100] vector's start: bytes -32..-1.
  const auto e = guardZoneElements(
      guardFinding({{"guard_zone", "before"}, {"first_byte", -32}, {"last_byte", -1}, {"tensor_bytes", 400}}),
      {100});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, (Index{-8}));
  EXPECT_EQ(e->last, (Index{-1}));
}

TEST(OobExtent, EvidenceThatDoesNotFitIsIgnored) {
  EXPECT_FALSE(guardZoneElements(guardFinding({{"guard_zone", "after"}}), {10, 10}));
  EXPECT_FALSE(guardZoneElements(
      guardFinding({{"guard_zone", "after"}, {"first_byte", 10}, {"last_byte", 5}, {"tensor_bytes", 400}}),
      {10, 10}));
  EXPECT_FALSE(guardZoneElements(
      guardFinding({{"guard_zone", "after"}, {"first_byte", 0}, {"last_byte", 5}, {"tensor_bytes", 401}}),
      {10, 10}));
  EXPECT_FALSE(oobElements(guardFinding(nlohmann::json::object()), {10, 10}));
}
