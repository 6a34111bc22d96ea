// Tests of kube::ControllerBuilder: For / Owns / Watches map informer changes to work-queue
// keys of the primary kind. Events are fed to the informers directly (they are WatchSinks), so
// no server is needed.
#include "controller/kube/controller_builder.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "controller/meta/object_meta_codec.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::kube {
namespace controller_builder_test {
namespace {

using ::testing::UnorderedElementsAre;

struct Obj {
  meta::ObjectMeta metadata;
};
const meta::ObjectMeta& MetaOf(const Obj& o) { return o.metadata; }

absl::StatusOr<std::shared_ptr<const Obj>> Decode(const nlohmann::json& j) {
  absl::StatusOr<meta::ObjectMeta> meta = meta::DecodeObjectMeta(j.at("metadata"));
  if (!meta.ok()) return meta.status();
  return std::make_shared<const Obj>(Obj{*std::move(meta)});
}

std::unique_ptr<Informer<Obj>> NewInformer() {
  return std::make_unique<Informer<Obj>>(nullptr, WatcherOptions{}, Decode,
                                         runtime::KeyByMeta<Obj>(MetaOf));
}

// Drains every ready key.
std::vector<std::string> Drain(runtime::WorkQueue* queue) {
  std::vector<std::string> keys;
  while (queue->Len() > 0) {
    std::optional<std::string> key = queue->Get();
    keys.push_back(*key);
    queue->Done(*key);
  }
  return keys;
}

class ControllerBuilderTest : public ::testing::Test {
 protected:
  ControllerBuilderTest() {
    runtime::ControllerOptions options;
    options.name = "builder";
    options.clock = &clock_;
    controller_ = std::make_unique<runtime::Controller>(std::move(options), [](const std::string&) {
      return absl::StatusOr<runtime::ReconcileResult>();
    });
  }

  runtime::FakeClock clock_;
  std::unique_ptr<runtime::Controller> controller_;
};

TEST_F(ControllerBuilderTest, ForEnqueuesTheObjectsOwnKey) {
  auto primaries = NewInformer();
  ControllerBuilder(controller_.get()).For<Obj>(primaries.get(), MetaOf);
  primaries->Apply(runtime::WatchEventType::kAdded,
                   {{"metadata", {{"name", "a"}, {"namespace", "ns"}}}});
  primaries->Apply(runtime::WatchEventType::kAdded, {{"metadata", {{"name", "cluster-wide"}}}});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("ns/a", "cluster-wide"));
}

// A controller owner reference to the GpuProfile "p1".
nlohmann::json ControllerRefToP1() {
  return {{"apiVersion", "gpuprofile.io/v1alpha1"},
          {"kind", "GpuProfile"},
          {"name", "p1"},
          {"uid", "u1"},
          {"controller", true}};
}

TEST_F(ControllerBuilderTest, OwnsFollowsTheControllerOwnerOfThatKindOnly) {
  auto owned = NewInformer();
  ControllerBuilder(controller_.get()).Owns<Obj>(owned.get(), MetaOf, "GpuProfile");
  nlohmann::json ref = ControllerRefToP1();
  owned->Apply(runtime::WatchEventType::kAdded,
               {{"metadata", {{"name", "t"}, {"namespace", "ml"}, {"ownerReferences", {ref}}}}});
  nlohmann::json other = ref;
  other["kind"] = "Deployment";
  owned->Apply(runtime::WatchEventType::kAdded,
               {{"metadata", {{"name", "u"}, {"ownerReferences", {other}}}}});
  nlohmann::json not_controller = ref;
  not_controller["controller"] = false;
  owned->Apply(runtime::WatchEventType::kAdded,
               {{"metadata", {{"name", "v"}, {"ownerReferences", {not_controller}}}}});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("ml/p1"));
}

// A GpuProfile (cluster-scoped) owning ResourceClaimTemplates (namespaced): the key is the
// profile's name, not "<template namespace>/<name>", which names no profile.
TEST_F(ControllerBuilderTest, OwnsAClusterScopedOwnerOfNamespacedObjectsByItsName) {
  auto owned = NewInformer();
  ControllerBuilder(controller_.get())
      .Owns<Obj>(owned.get(), MetaOf, "GpuProfile", OwnerScope::kCluster);
  nlohmann::json ref = ControllerRefToP1();
  owned->Apply(runtime::WatchEventType::kAdded,
               {{"metadata", {{"name", "t"}, {"namespace", "ml"}, {"ownerReferences", {ref}}}}});
  owned->Apply(runtime::WatchEventType::kAdded,
               {{"metadata", {{"name", "c"}, {"ownerReferences", {ref}}}}});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("p1"));
}

TEST_F(ControllerBuilderTest, WatchesMapsBeforeAndAfterAndDeletes) {
  auto watched = NewInformer();
  ControllerBuilder(controller_.get()).Watches<Obj>(watched.get(), [](const Obj& o) {
    auto it = o.metadata.labels.find("team");
    return it == o.metadata.labels.end() ? std::vector<std::string>{}
                                         : std::vector<std::string>{it->second};
  });
  watched->Apply(runtime::WatchEventType::kAdded,
                 {{"metadata", {{"name", "x"}, {"labels", {{"team", "a"}}}}}});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("a"));
  // Moving from team a to b tells both.
  watched->Apply(runtime::WatchEventType::kModified,
                 {{"metadata", {{"name", "x"}, {"labels", {{"team", "b"}}}}}});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("a", "b"));
  watched->Apply(runtime::WatchEventType::kDeleted,
                 {{"metadata", {{"name", "x"}, {"labels", {{"team", "b"}}}}}});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("b"));
  // A relist that no longer has it reports it deleted.
  watched->Apply(runtime::WatchEventType::kAdded,
                 {{"metadata", {{"name", "y"}, {"labels", {{"team", "c"}}}}}});
  Drain(controller_->queue());
  watched->Replace({});
  EXPECT_THAT(Drain(controller_->queue()), UnorderedElementsAre("c"));
}

TEST_F(ControllerBuilderTest, UrgentWatchesGoAheadOfQueuedWork) {
  auto bulk = NewInformer();
  auto urgent = NewInformer();
  ControllerBuilder(controller_.get())
      .For<Obj>(bulk.get(), MetaOf)
      .Watches<Obj>(
          urgent.get(), [](const Obj&) { return std::vector<std::string>{"hot"}; }, true);
  for (int i = 0; i < 5; ++i) {
    bulk->Apply(runtime::WatchEventType::kAdded,
                {{"metadata", {{"name", "p" + std::to_string(i)}}}});
  }
  urgent->Apply(runtime::WatchEventType::kAdded, {{"metadata", {{"name", "ns"}}}});
  std::vector<std::string> keys = Drain(controller_->queue());
  ASSERT_EQ(keys.size(), 6u);
  EXPECT_EQ(keys.front(), "hot");
}

}  // namespace
}  // namespace controller_builder_test
}  // namespace gpuprofile::kube
