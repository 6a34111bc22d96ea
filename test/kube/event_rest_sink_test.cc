// File: test/kube/event_rest_sink_test.cc
// RestEventSink against the real kube-emulator over HTTP: an EventRecorder writing through it
// (directly and behind an AsyncEventSink), repeats aggregated into one Event whose series the
// server stores, the Event decoded back, cluster-scoped objects' events in "default", a series
// update of a vanished Event re-creating it, and DecodeEvent's error messages.
#include "controller/kube/event_rest_sink.h"

#include <memory>
#include <string>
#include <vector>

#include "controller/kube/api_error.h"
#include "controller/runtime/async_event_sink.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace event_rest_sink_test {
namespace {

using runtime::Event;
using runtime::EventType;
using runtime::ObjectReference;
using testing::KubeEmulator;

#define ASSERT_EMULATOR(emu) ASSERT_TRUE((emu).ok()) << (emu).error()

const ObjectReference kProfile{"gpuprofile.io/v1alpha1", "GpuProfile", "default",
                               "large-memory",           "uid-1",      "17"};
const ObjectReference kDeviceClass{"resource.k8s.io/v1", "DeviceClass", "",
                                   "large-memory.gpu",   "uid-2",       ""};

runtime::EventRecorderOptions RecorderOptions(runtime::Clock* clock, runtime::EventSink* sink) {
  runtime::EventRecorderOptions options;
  options.reporting_controller = "gpuprofile.io/gpu-profile-operator";
  options.reporting_instance = "gpu-profile-operator-7d9f-abcde";
  options.clock = clock;
  options.sink = sink;
  return options;
}

std::vector<Event> ListEvents(RestClient* client, const std::string& ns) {
  absl::StatusOr<ObjectList> list = client->ListAll(EventsPath(ns), {});
  EXPECT_OK(list);
  std::vector<Event> events;
  if (!list.ok()) return events;
  for (const nlohmann::json& item : list->items) {
    absl::StatusOr<Event> event = DecodeEvent(item);
    EXPECT_OK(event);
    if (event.ok()) events.push_back(*event);
  }
  return events;
}

TEST(RestEventSinkTest, RecorderWritesOneEventAndARepeatBecomesItsSeries) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  runtime::FakeClock clock(absl::FromUnixMicros(1700000000123456));
  RestEventSink sink(emu.client());
  runtime::EventRecorder recorder(RecorderOptions(&clock, &sink));
  ASSERT_OK(recorder.Record(kProfile, EventType::kWarning, "Unsatisfiable", "Reconcile",
                            "no device matches memory >= 48Gi"));
  clock.Advance(absl::Seconds(30));
  ASSERT_OK(recorder.Record(kProfile, EventType::kWarning, "Unsatisfiable", "Reconcile",
                            "no device matches memory >= 48Gi"));

  std::vector<Event> events = ListEvents(emu.client(), "default");
  ASSERT_EQ(events.size(), 1u);
  const Event& e = events[0];
  EXPECT_EQ(e.namespace_name, "default");
  EXPECT_EQ(e.name.rfind("large-memory.", 0), 0u) << e.name;
  EXPECT_EQ(e.event_time, absl::FromUnixMicros(1700000000123456));
  ASSERT_TRUE(e.series.has_value());
  EXPECT_EQ(e.series->count, 2);
  EXPECT_EQ(e.series->last_observed_time, absl::FromUnixMicros(1700000030123456));
  EXPECT_EQ(e.reporting_controller, "gpuprofile.io/gpu-profile-operator");
  EXPECT_EQ(e.reporting_instance, "gpu-profile-operator-7d9f-abcde");
  EXPECT_EQ(e.action, "Reconcile");
  EXPECT_EQ(e.reason, "Unsatisfiable");
  EXPECT_EQ(e.note, "no device matches memory >= 48Gi");
  EXPECT_EQ(e.type, EventType::kWarning);
  EXPECT_EQ(e.regarding.api_version, kProfile.api_version);
  EXPECT_EQ(e.regarding.kind, "GpuProfile");
  EXPECT_EQ(e.regarding.namespace_name, "default");
  EXPECT_EQ(e.regarding.name, "large-memory");
  EXPECT_EQ(e.regarding.uid, "uid-1");
  EXPECT_EQ(e.regarding.resource_version, "17");

  // Re-encoding what was decoded gives the same fields the recorder wrote.
  ASSERT_OK_AND_ASSIGN(nlohmann::json raw,
                       emu.client()->Get(EventsPath("default").WithName(e.name)));
  nlohmann::json encoded = runtime::EncodeEvent(e);
  for (const char* key : {"eventTime", "series", "reportingController", "reportingInstance",
                          "action", "reason", "regarding", "note", "type"}) {
    EXPECT_EQ(nlohmann::json(encoded[key]), raw[key]) << key;
  }
}

TEST(RestEventSinkTest, ClusterScopedObjectsEventsLandInDefault) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  runtime::FakeClock clock;
  RestEventSink sink(emu.client());
  runtime::EventRecorder recorder(RecorderOptions(&clock, &sink));
  ASSERT_OK(recorder.Record(kDeviceClass, EventType::kNormal, "Created", "Reconcile",
                            "DeviceClass created"));
  std::vector<Event> events = ListEvents(emu.client(), "default");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].regarding.kind, "DeviceClass");
  EXPECT_EQ(events[0].regarding.namespace_name, "");
  EXPECT_EQ(events[0].type, EventType::kNormal);
  EXPECT_FALSE(events[0].series.has_value());
}

TEST(RestEventSinkTest, SeriesUpdateOfAVanishedEventCreatesItAgain) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  RestEventSink sink(emu.client());
  Event event;
  event.namespace_name = "default";
  event.name = "gone.1";
  event.event_time = absl::FromUnixSeconds(1700000000);
  event.reporting_controller = "gpuprofile.io/gpu-profile-operator";
  event.action = "Reconcile";
  event.reason = "Seen";
  event.regarding = kProfile;
  event.series = runtime::EventSeries{5, absl::FromUnixSeconds(1700000100)};
  ASSERT_OK(sink.UpdateSeries(event));
  std::vector<Event> events = ListEvents(emu.client(), "default");
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events[0].series.has_value());
  EXPECT_EQ(events[0].series->count, 5);

  event.series.reset();
  EXPECT_TRUE(absl::IsInvalidArgument(sink.UpdateSeries(event)));
  // Events of a namespace that does not exist are refused by the server, typed.
  event.namespace_name = "missing";
  EXPECT_TRUE(apierrors::IsNotFound(sink.Create(event)));
}

TEST(RestEventSinkTest, BehindAnAsyncSinkRepeatsStillBecomeOneEvent) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  runtime::FakeClock clock;
  RestEventSink rest(emu.client());
  runtime::AsyncEventSink async(&rest, {});
  runtime::EventRecorder recorder(RecorderOptions(&clock, &async));
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(recorder.Record(kProfile, EventType::kNormal, "Reconciled", "Reconcile", "ok"));
    clock.Advance(absl::Seconds(1));
  }
  ASSERT_OK(async.Stop(absl::Seconds(30)));
  EXPECT_EQ(async.stats().failed, 0);
  std::vector<Event> events = ListEvents(emu.client(), "default");
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events[0].series.has_value());
  EXPECT_EQ(events[0].series->count, 5);
}

TEST(DecodeEventTest, MalformedFieldsAreDataLossNamingTheEventAndField) {
  struct Case {
    nlohmann::json object;
    std::string field;
  };
  const nlohmann::json metadata = {{"name", "x.1"}, {"namespace", "ns"}};
  for (const Case& c : std::vector<Case>{
           {{{"metadata", metadata}, {"eventTime", "noon"}}, "eventTime"},
           {{{"metadata", metadata}, {"reason", 7}}, "reason"},
           {{{"metadata", metadata}, {"type", "Fatal"}}, "type"},
           {{{"metadata", metadata}, {"regarding", "x"}}, "regarding"},
           {{{"metadata", metadata}, {"series", {{"count", "2"}}}}, "series.count"},
       }) {
    absl::StatusOr<Event> event = DecodeEvent(c.object);
    ASSERT_FALSE(event.ok()) << c.object;
    EXPECT_EQ(event.status().code(), absl::StatusCode::kDataLoss) << event.status();
    EXPECT_NE(event.status().message().find("Event ns/x.1: " + c.field), absl::string_view::npos)
        << event.status();
  }
}

}  // namespace
}  // namespace event_rest_sink_test
}  // namespace gpuprofile::kube
