// File: test/runtime/event_recorder_test.cc
#include "controller/runtime/event_recorder.h"

#include <string>
#include <vector>

#include "controller/runtime/event.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace event_recorder_test {
namespace {

class FakeEventSink final : public EventSink {
 public:
  absl::Status Create(const Event& event) override {
    if (!create_status.ok()) return create_status;
    created.push_back(event);
    return absl::OkStatus();
  }
  absl::Status UpdateSeries(const Event& event) override {
    updated.push_back(event);
    return absl::OkStatus();
  }
  std::vector<Event> created;
  std::vector<Event> updated;
  absl::Status create_status;
};

ObjectReference Profile(const std::string& name) {
  return ObjectReference{"gpuprofile.io/v1alpha1", "GpuProfile", "", name, "uid-" + name, "7"};
}

class EventRecorderTest : public ::testing::Test {
 protected:
  EventRecorderTest()
      : recorder_(
            EventRecorderOptions{"gpuprofile.io/gpu-profile-operator", "pod-1", &clock_, &sink_}) {}
  FakeClock clock_;
  FakeEventSink sink_;
  EventRecorder recorder_;
};

TEST_F(EventRecorderTest, BuildsAnEventsV1Event) {
  ASSERT_OK(recorder_.Record(Profile("a100"), EventType::kNormal, "Applied", "Reconcile",
                             "DeviceClass a100 created"));
  ASSERT_EQ(sink_.created.size(), 1u);
  const Event& e = sink_.created[0];
  EXPECT_EQ(e.namespace_name, "default");      // cluster-scoped regarding object
  EXPECT_EQ(e.name, "a100.17979cfe362a0000");  // name + hex nanoseconds of the event time
  EXPECT_EQ(EncodeEvent(e).dump(),
            R"({"apiVersion":"events.k8s.io/v1","kind":"Event",)"
            R"("metadata":{"name":"a100.17979cfe362a0000","namespace":"default"},)"
            R"("eventTime":"2023-11-14T22:13:20.000000Z",)"
            R"("reportingController":"gpuprofile.io/gpu-profile-operator",)"
            R"("reportingInstance":"pod-1","action":"Reconcile","reason":"Applied",)"
            R"("regarding":{"apiVersion":"gpuprofile.io/v1alpha1","kind":"GpuProfile",)"
            R"("name":"a100","uid":"uid-a100","resourceVersion":"7"},)"
            R"("note":"DeviceClass a100 created","type":"Normal"})");
}

TEST_F(EventRecorderTest, RepeatsWithinTheWindowBecomeASeries) {
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kWarning, "Unsatisfiable", "Reconcile",
                             "no device matches"));
  clock_.Advance(absl::Minutes(1));
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kWarning, "Unsatisfiable", "Reconcile",
                             "no device matches"));
  clock_.Advance(absl::Minutes(5));
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kWarning, "Unsatisfiable", "Reconcile",
                             "no device matches"));
  EXPECT_EQ(sink_.created.size(), 1u);
  ASSERT_EQ(sink_.updated.size(), 2u);
  const Event& last = sink_.updated.back();
  EXPECT_EQ(last.name, sink_.created[0].name);
  ASSERT_TRUE(last.series.has_value());
  EXPECT_EQ(last.series->count, 3);
  EXPECT_EQ(last.series->last_observed_time, clock_.Now());
  EXPECT_EQ(EncodeEvent(last)["series"].dump(),
            R"({"count":3,"lastObservedTime":"2023-11-14T22:19:20.000000Z"})");
}

TEST_F(EventRecorderTest, DifferentNoteReasonOrObjectIsANewEvent) {
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "Applied", "Reconcile", "x"));
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "Applied", "Reconcile", "y"));
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "Deleted", "Reconcile", "x"));
  ASSERT_OK(recorder_.Record(Profile("b"), EventType::kNormal, "Applied", "Reconcile", "x"));
  ASSERT_EQ(sink_.created.size(), 4u);
  EXPECT_TRUE(sink_.updated.empty());
  EXPECT_NE(sink_.created[0].name, sink_.created[1].name);  // unique even at the same instant
  EXPECT_EQ(recorder_.CacheSize(), 4u);
}

TEST_F(EventRecorderTest, AfterAQuietWindowTheNextOccurrenceIsANewEvent) {
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "Applied", "Reconcile", "x"));
  clock_.Advance(absl::Minutes(6));
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "Applied", "Reconcile", "x"));
  EXPECT_EQ(sink_.created.size(), 2u);
  EXPECT_TRUE(sink_.updated.empty());
  EXPECT_EQ(recorder_.CacheSize(), 1u);  // the old entry expired
}

TEST_F(EventRecorderTest, FailedCreateIsRetriedByTheNextOccurrence) {
  sink_.create_status = absl::UnavailableError("apiserver down");
  EXPECT_EQ(recorder_.Record(Profile("a"), EventType::kNormal, "Applied", "Reconcile", "x").code(),
            absl::StatusCode::kUnavailable);
  sink_.create_status = absl::OkStatus();
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "Applied", "Reconcile", "x"));
  EXPECT_EQ(sink_.created.size(), 1u);
  EXPECT_TRUE(sink_.updated.empty());
}

TEST_F(EventRecorderTest, NamespacedObjectsGetEventsInTheirNamespace) {
  ObjectReference ref{"resource.k8s.io/v1", "ResourceClaimTemplate", "team-a", "gpu", "u", ""};
  ASSERT_OK(recorder_.Record(ref, EventType::kNormal, "Created", "Reconcile", ""));
  EXPECT_EQ(sink_.created[0].namespace_name, "team-a");
  EXPECT_FALSE(EncodeEvent(sink_.created[0]).contains("note"));
}

TEST_F(EventRecorderTest, RejectsWhatTheApiWouldAndTruncatesLongNotes) {
  EXPECT_EQ(recorder_.Record(Profile(""), EventType::kNormal, "R", "A", "").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(recorder_.Record(Profile("a"), EventType::kNormal, "", "A", "").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(recorder_.Record(Profile("a"), EventType::kNormal, "R", "", "").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      recorder_.Record(Profile("a"), EventType::kNormal, std::string(129, 'r'), "A", "").code(),
      absl::StatusCode::kInvalidArgument);
  // 1023 ASCII bytes then a 2-byte character: cut before it, not through it.
  const std::string note = std::string(1023, 'x') + "\xC3\xA9" + "tail";
  ASSERT_OK(recorder_.Record(Profile("a"), EventType::kNormal, "R", "A", note));
  EXPECT_EQ(sink_.created.back().note, std::string(1023, 'x'));
}

TEST(FormatMicroTimeTest, SixFractionalDigitsInUtc) {
  EXPECT_EQ(FormatMicroTime(absl::FromUnixMicros(1700000000123456)), "2023-11-14T22:13:20.123456Z");
}

}  // namespace
}  // namespace event_recorder_test
}  // namespace gpuprofile::runtime
