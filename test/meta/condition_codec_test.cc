// File: test/meta/condition_codec_test.cc
// The conditions list of a status: its encoding (what the CRDs are written from), the strict
// decoding with field paths, and the lenient one.
#include "controller/meta/condition_codec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::meta {
namespace condition_codec_test {
namespace {

using ::testing::ElementsAre;
using json = nlohmann::json;

std::vector<Condition> Two() {
  return {{"Ready", ConditionStatus::kTrue, 3, "2025-01-01T00:00:00Z", "Reconciled", "done"},
          {"Satisfiable", ConditionStatus::kFalse, 3, "", "NoMatchingDevices", "no device"}};
}

TEST(ConditionCodecTest, EncodesInDocumentedOrder) {
  EXPECT_EQ(
      EncodeConditions(Two(), ConditionGeneration::kIncluded).dump(),
      R"([{"type":"Ready","status":"True","observedGeneration":3,)"
      R"("lastTransitionTime":"2025-01-01T00:00:00Z","reason":"Reconciled","message":"done"},)"
      R"({"type":"Satisfiable","status":"False","observedGeneration":3,)"
      R"("reason":"NoMatchingDevices","message":"no device"}])");
  EXPECT_EQ(EncodeConditions(Two(), ConditionGeneration::kOmitted).dump(),
            R"([{"type":"Ready","status":"True","lastTransitionTime":"2025-01-01T00:00:00Z",)"
            R"("reason":"Reconciled","message":"done"},)"
            R"({"type":"Satisfiable","status":"False","reason":"NoMatchingDevices",)"
            R"("message":"no device"}])");
  EXPECT_EQ(EncodeConditions({}, ConditionGeneration::kIncluded).dump(), "[]");
  std::vector<Condition> unknown = {{"Conflict", ConditionStatus::kUnknown, 0, "", "", ""}};
  EXPECT_EQ(EncodeConditions(unknown, ConditionGeneration::kOmitted).dump(),
            R"([{"type":"Conflict","status":"Unknown","reason":"","message":""}])");
}

TEST(ConditionCodecTest, DecodesWhatItEncodes) {
  for (ConditionGeneration generation :
       {ConditionGeneration::kIncluded, ConditionGeneration::kOmitted}) {
    std::vector<Condition> want = Two();
    if (generation == ConditionGeneration::kOmitted) {
      for (Condition& c : want) c.observed_generation = 0;
    }
    const json encoded = json::parse(EncodeConditions(Two(), generation).dump());
    FieldErrors errors;
    EXPECT_EQ(DecodeConditions(encoded, "status.conditions", generation, &errors), want);
    EXPECT_TRUE(errors.empty()) << errors.ToStatus();
    EXPECT_EQ(DecodeConditionsLeniently(encoded), want);
  }
}

TEST(ConditionCodecTest, StrictDecodingReportsEachProblemWithItsPath) {
  const json conditions = json::parse(R"([
    "Ready",
    {"status": "True", "reason": 7},
    {"type": "Stalled", "status": "", "observedGeneration": "one"},
    {"type": "Conflict", "status": "Maybe", "lastTransitionTime": null, "message": "m"}
  ])");
  FieldErrors errors;
  std::vector<Condition> got =
      DecodeConditions(conditions, "status.conditions", ConditionGeneration::kIncluded, &errors);
  EXPECT_THAT(
      errors.lines(),
      ElementsAre("status.conditions[0]: must be an object, got string",
                  "status.conditions[1].type: required",
                  "status.conditions[1].reason: must be a string, got integer",
                  "status.conditions[2].status: required (must not be empty)",
                  "status.conditions[2].observedGeneration: must be an integer, got string"));
  // Entries that are objects are kept, with what could be read.
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].type, "");
  EXPECT_EQ(got[0].status, ConditionStatus::kTrue);
  EXPECT_EQ(got[0].reason, "");
  EXPECT_EQ(got[1].type, "Stalled");
  EXPECT_EQ(got[1].status, ConditionStatus::kUnknown);
  EXPECT_EQ(got[1].observed_generation, 0);
  EXPECT_EQ(got[2], (Condition{"Conflict", ConditionStatus::kUnknown, 0, "", "", "m"}));

  // Without observedGeneration in the kind, the member is not read at all.
  FieldErrors omitted;
  got = DecodeConditions(json::parse(R"([{"type": "A", "status": "True",
                                          "observedGeneration": "x"}])"),
                         "status.conditions", ConditionGeneration::kOmitted, &omitted);
  EXPECT_TRUE(omitted.empty()) << omitted.ToStatus();
  EXPECT_THAT(got, ElementsAre(Condition{"A", ConditionStatus::kTrue, 0, "", "", ""}));
}

TEST(ConditionCodecTest, LenientDecodingSkipsWhatDoesNotFit) {
  const json conditions = json::parse(R"([
    "Ready",
    {"status": "True"},
    {"type": "", "status": "True"},
    {"type": "Ready", "status": "True", "observedGeneration": 4, "reason": 7, "message": null},
    {"type": "Stalled", "status": "false", "observedGeneration": 1.5},
    {"type": "Conflict", "status": "False", "observedGeneration": 18446744073709551615,
     "lastTransitionTime": "2025-01-01T00:00:00Z"}
  ])");
  EXPECT_THAT(DecodeConditionsLeniently(conditions),
              ElementsAre(Condition{"Ready", ConditionStatus::kTrue, 4, "", "", ""},
                          Condition{"Stalled", ConditionStatus::kUnknown, 0, "", "", ""},
                          Condition{"Conflict", ConditionStatus::kFalse, 0, "2025-01-01T00:00:00Z",
                                    "", ""}));
}

}  // namespace
}  // namespace condition_codec_test
}  // namespace gpuprofile::meta
