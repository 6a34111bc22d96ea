// File: test/profile/profile_capabilities_test.cc
// The profile fields of docs/design.md §3 beyond selection — MIG profiles, sharing, capacity
// requests, fallback, extended resource names, tolerations, quota — through the engine, on the
// NVIDIA driver's own publications (test/testdata/dra/nvidia-1.35) and per release and gate.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "controller/profile/engine.h"
#include "controller/profile/fallback.h"
#include "controller/profile/feature_support.h"
#include "controller/profile/profile_conditions.h"
#include "controller/profile/sharing_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace profile_capabilities_test {
namespace {

using ::gpuprofile::profile::testing::Cond;
using ::gpuprofile::profile::testing::DefaultSpec;
using ::gpuprofile::profile::testing::LoadInventory;
using ::gpuprofile::profile::testing::MakeProfile;
using ::gpuprofile::profile::testing::Ns;
using ::gpuprofile::profile::testing::Q;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

constexpr char kDynamicMig136[] =
    "test/testdata/dra/nvidia-1.35/dynamicmig-a100x2-numalist-taint.k8s-1.36.v1.yaml";
constexpr char kConsumableShares136[] =
    "test/testdata/dra/nvidia-1.35/consumable-shares-a100x2.k8s-1.36.v1.yaml";

const ProfileOutcome& Outcome(const DesiredState& state, const std::string& name) {
  for (const ProfileOutcome& p : state.profiles) {
    if (p.profile.metadata.name == name) return p;
  }
  ADD_FAILURE() << "no outcome for " << name;
  static const ProfileOutcome kNone;
  return kNone;
}

const dra::DeviceClass* ClassOf(const DesiredState& state, const std::string& name) {
  for (const dra::DeviceClass& c : state.device_classes) {
    if (c.metadata.name == name) return &c;
  }
  return nullptr;
}

class CapabilitiesTest : public ::testing::Test {
 protected:
  void UseRelease(const std::string& version, const std::string& gates = "") {
    KubeVersion kube = *KubeVersion::Parse(version);
    input_.kube_version = kube;
    absl::StatusOr<FeatureGates> parsed = FeatureGates::Parse(kube, gates);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    input_.feature_gates = *parsed;
  }
  // A profile named `name` targeting namespace ml-train; the class and template take its name.
  api::GpuProfileSpec& Add(const std::string& name, const std::string& created = "") {
    api::GpuProfileSpec spec = DefaultSpec(name);
    spec.claim_template.namespaces = {"ml-train"};
    input_.profiles.push_back(MakeProfile(name, spec));
    input_.profiles.back().metadata.creation_timestamp = created;
    return input_.profiles.back().spec;
  }
  DesiredState Run(const std::vector<std::string>& fleet) {
    input_.namespaces = {Ns("ml-train"), Ns("ml-infer")};
    return ComputeDesiredState(input_, LoadInventory(fleet));
  }

  EngineInput input_;
};

// --- MIG -----------------------------------------------------------------------------------

// The DynamicMIG publication carries numaNode as a list, which selectors read only where
// DRAListTypeAttributes is on (elsewhere every selector fails on those devices, as the
// scheduler's do).
constexpr char kListTypes[] = "DRAListTypeAttributes=true";

TEST_F(CapabilitiesTest, MigProfilesSelectPlacementsAndCountWhatFitsAtOnce) {
  UseRelease("1.36", kListTypes);
  api::GpuProfileSpec& small = Add("mig-small");
  small.device_type = "mig";
  small.selector.mig_profiles = {"1g.5gb"};
  api::GpuProfileSpec& half = Add("mig-half");
  half.device_type = "mig";
  half.selector.mig_profiles = {"3g.20gb"};
  const DesiredState state = Run({kDynamicMig136});

  const ProfileOutcome& s = Outcome(state, "mig-small");
  EXPECT_THAT(s.profile.status.selectors,
              ::testing::Contains(HasSubstr("device.attributes['gpu.nvidia.com'].profile in "
                                            "['1g.5gb']")));
  // Seven 1g.5gb placements per A100-40GB, and all seven fit at once (7 × 14 of 98 SMs).
  EXPECT_EQ(s.profile.status.matched_devices, 14);
  EXPECT_EQ(s.profile.status.schedulable_devices, 14);
  // Two 3g.20gb placements per GPU (starts 0 and 4), both fit at once.
  const ProfileOutcome& h = Outcome(state, "mig-half");
  EXPECT_EQ(h.profile.status.matched_devices, 4);
  EXPECT_EQ(h.profile.status.schedulable_devices, 4);
}

TEST_F(CapabilitiesTest, MigProfilesNeedADriverThatPublishesThem) {
  UseRelease("1.36");
  api::GpuProfileSpec& spec = Add("amd-mig");
  spec.driver = "gpu.amd.com";
  spec.device_type = "amdgpu-partition";
  spec.selector.mig_profiles = {"1g.5gb"};
  const DesiredState state = Run({kDynamicMig136});
  const ProfileOutcome& p = Outcome(state, "amd-mig");
  EXPECT_FALSE(p.valid);
  EXPECT_EQ(p.stalled_reason, kReasonInvalidSpec);
  EXPECT_THAT(p.problems, HasSubstr("spec.selector.migProfiles: driver gpu.amd.com publishes no "
                                    "attribute for migProfiles"));
}

// --- Sharing -------------------------------------------------------------------------------

TEST_F(CapabilitiesTest, SharingBecomesTheDriversConfigurationKindOnTheClass) {
  UseRelease("1.36");
  api::GpuProfileSpec& ts = Add("time-sliced");
  ts.sharing = api::SharingSpec{api::SharingStrategy::kTimeSlicing,
                                api::TimeSlicingSettings{"Long"}, std::nullopt};
  ts.config = {
      {"gpu.nvidia.com",
       {{"apiVersion", "resource.nvidia.com/v1beta1"}, {"kind", "ComputeDomainChannelConfig"}}}};
  api::GpuProfileSpec& mps = Add("mig-mps");
  mps.device_type = "mig";
  mps.sharing =
      api::SharingSpec{api::SharingStrategy::kMps, std::nullopt, api::MpsSettings{50, Q("8Gi")}};
  api::GpuProfileSpec& exclusive = Add("exclusive");
  exclusive.sharing = api::SharingSpec{};
  const DesiredState state = Run({kDynamicMig136});

  const dra::DeviceClass* c = ClassOf(state, "time-sliced");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->config.size(), 2u);  // the generated one first, then spec.config
  EXPECT_EQ(c->config[0].driver, "gpu.nvidia.com");
  EXPECT_EQ(c->config[0].parameters,
            nlohmann::json::parse(R"({"apiVersion": "resource.nvidia.com/v1beta1",
              "kind": "GpuConfig",
              "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}})"));
  EXPECT_EQ(c->config[1].parameters["kind"], "ComputeDomainChannelConfig");

  c = ClassOf(state, "mig-mps");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->config.size(), 1u);
  EXPECT_EQ(c->config[0].parameters,
            nlohmann::json::parse(R"({"apiVersion": "resource.nvidia.com/v1beta1",
              "kind": "MigDeviceConfig",
              "sharing": {"strategy": "MPS", "mpsConfig": {"defaultActiveThreadPercentage": 50,
                          "defaultPinnedDeviceMemoryLimit": "8Gi"}}})"));

  c = ClassOf(state, "exclusive");
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(c->config, IsEmpty());  // the driver's default needs no configuration
}

TEST_F(CapabilitiesTest, SharingProblemsNameTheDriverAndTheField) {
  struct Case {
    std::string name;
    std::string driver;
    std::optional<std::string> device_type;
    api::SharingSpec sharing;
    std::vector<api::OpaqueConfig> config;
    std::string problem;
  };
  const api::SharingSpec mps{api::SharingStrategy::kMps, std::nullopt, std::nullopt};
  const api::SharingSpec interval{api::SharingStrategy::kTimeSlicing,
                                  api::TimeSlicingSettings{"Short"}, std::nullopt};
  const std::vector<Case> cases = {
      {"example",
       "gpu.example.com",
       std::nullopt,
       mps,
       {},
       "spec.sharing: driver gpu.example.com has no sharing configuration the operator knows "
       "(drivers with one: gpu.nvidia.com)"},
      {"vfio",
       "gpu.nvidia.com",
       "vfio",
       mps,
       {},
       "spec.sharing: driver gpu.nvidia.com cannot share devices of type \"vfio\" (only gpu, "
       "mig)"},
      {"mig-interval",
       "gpu.nvidia.com",
       "mig",
       interval,
       {},
       "spec.sharing.timeSlicing.interval: driver gpu.nvidia.com's MigDeviceConfig (device type "
       "mig) has no time-slice interval"},
      {"twice",
       "gpu.nvidia.com",
       std::nullopt,
       mps,
       {{"gpu.nvidia.com", {{"apiVersion", "resource.nvidia.com/v1beta1"}, {"kind", "GpuConfig"}}}},
       "spec.config[0]: a GpuConfig for gpu.nvidia.com would conflict with the one spec.sharing "
       "generates"},
  };
  for (const Case& c : cases) {
    api::GpuProfileSpec spec = DefaultSpec(c.name);
    spec.driver = c.driver;
    spec.device_type = c.device_type;
    spec.sharing = c.sharing;
    spec.config = c.config;
    const SharingConfigResult result = CompileSharing(spec);
    EXPECT_FALSE(result.config.has_value()) << c.name;
    EXPECT_THAT(result.problems, ElementsAre(HasSubstr(c.problem))) << c.name;
  }
}

// --- Fallback ------------------------------------------------------------------------------

TEST(FallbackTest, ChainsAreDepthFirstAndVisitEveryProfileOnce) {
  const std::map<std::string, std::vector<std::string>> fallbacks = {
      {"h100", {"a100", "l40s"}}, {"a100", {"a10"}}, {"l40s", {"a10"}}, {"a10", {}}};
  const auto usable = [](const std::string&) { return std::string(); };
  FallbackChain chain = ResolveFallback("h100", fallbacks, usable);
  EXPECT_THAT(chain.problems, IsEmpty());
  EXPECT_THAT(chain.profiles, ElementsAre("h100", "a100", "a10", "l40s"));
  EXPECT_THAT(ResolveFallback("a10", fallbacks, usable).profiles, ElementsAre("a10"));
}

TEST(FallbackTest, MissingUnusableCyclicAndTooLongChainsAreProblems) {
  const auto usable = [](const std::string& name) {
    return name == "broken" ? std::string("its spec is invalid") : std::string();
  };
  std::map<std::string, std::vector<std::string>> fallbacks = {
      {"a", {"b", "ghost"}}, {"b", {"c"}}, {"c", {"b"}}, {"d", {"broken"}}, {"broken", {}}};
  FallbackChain chain = ResolveFallback("a", fallbacks, usable);
  EXPECT_THAT(chain.profiles, IsEmpty());
  EXPECT_THAT(chain.problems,
              ElementsAre("spec.fallback[0]: the fallbacks form a cycle (b -> c -> b)",
                          "spec.fallback[1]: GpuProfile ghost does not exist"));
  EXPECT_THAT(ResolveFallback("d", fallbacks, usable).problems,
              ElementsAre("spec.fallback[0]: GpuProfile broken cannot be a fallback: its spec "
                          "is invalid"));

  std::map<std::string, std::vector<std::string>> long_chain;
  for (int i = 0; i < 9; ++i) {
    long_chain["p" + std::to_string(i)] =
        i < 8 ? std::vector<std::string>{"p" + std::to_string(i + 1)} : std::vector<std::string>{};
  }
  EXPECT_THAT(ResolveFallback("p0", long_chain, usable).problems,
              ElementsAre(HasSubstr("has 9 profiles; a firstAvailable request holds at most 8")));
  EXPECT_THAT(ResolveFallback("p1", long_chain, usable).problems, IsEmpty());
}

TEST_F(CapabilitiesTest, FallbackBecomesAFirstAvailableRequestOfEachProfilesClass) {
  UseRelease("1.34");
  api::GpuProfileSpec& h100 = Add("h100");
  h100.selector.product_names = {"NVIDIA H100 80GB HBM3"};
  h100.fallback = {"a100"};
  h100.claim_template.namespaces = {"ml-train"};
  api::GpuProfileSpec& a100 = Add("a100");
  a100.selector.product_names = {"NVIDIA A100-SXM4-40GB"};
  a100.count = 2;
  a100.claim_template.namespaces = {};
  const DesiredState state = Run({testing::kSampleFleet});

  ASSERT_EQ(state.template_sets.size(), 1u);
  const dra::ResourceClaimTemplate& t = state.template_sets[0].prototype;
  ASSERT_EQ(t.requests.size(), 1u);
  const dra::ExactDeviceRequest& r = t.requests[0];
  EXPECT_EQ(r.name, "gpu");
  EXPECT_TRUE(r.device_class_name.empty());
  ASSERT_EQ(r.first_available.size(), 2u);
  EXPECT_EQ(r.first_available[0].name, "h100");
  EXPECT_EQ(r.first_available[0].device_class_name, "h100");
  EXPECT_EQ(r.first_available[0].count, 1);
  EXPECT_EQ(r.first_available[1].name, "a100");
  EXPECT_EQ(r.first_available[1].device_class_name, "a100");
  EXPECT_EQ(r.first_available[1].count, 2);
  EXPECT_TRUE(Outcome(state, "h100").valid);
}

TEST_F(CapabilitiesTest, AMissingFallbackStallsTheProfileAndWritesNothing) {
  UseRelease("1.34");
  Add("h100").fallback = {"a100"};
  const DesiredState state = Run({testing::kSampleFleet});
  const ProfileOutcome& p = Outcome(state, "h100");
  EXPECT_FALSE(p.valid);
  EXPECT_EQ(Cond(p, meta::kConditionStalled).reason, kReasonInvalidFallback);
  EXPECT_EQ(Cond(p, meta::kConditionStalled).message,
            "spec.fallback[0]: GpuProfile a100 does not exist");
  EXPECT_THAT(state.device_classes, IsEmpty());
  EXPECT_THAT(state.template_sets, IsEmpty());
}

// --- What each release can express ---------------------------------------------------------

TEST_F(CapabilitiesTest, FieldsAClusterCannotExpressAreFeatureNotServed) {
  struct Case {
    std::string version;
    std::string gates;
    std::string field;     // which field the profile uses
    std::string expected;  // "" when served
  };
  const std::vector<Case> cases = {
      {"1.32", "", "fallback",
       "spec.fallback: Kubernetes 1.32 cannot express it: prioritized lists of subrequests "
       "(firstAvailable) need feature gate DRAPrioritizedList, which exists from 1.33"},
      {"1.33", "", "fallback",
       "spec.fallback: Kubernetes 1.33 does not serve prioritized lists of subrequests "
       "(firstAvailable): feature gate DRAPrioritizedList (alpha) is off by default; if the "
       "cluster enables it, pass --feature-gates DRAPrioritizedList=true"},
      {"1.33", "DRAPrioritizedList=true", "fallback", ""},
      {"1.34", "", "fallback", ""},
      {"1.35", "", "tolerations", "feature gate DRADeviceTaints (alpha) is off by default"},
      {"1.35", "DRADeviceTaints=true", "tolerations", ""},
      {"1.36", "", "tolerations", ""},
      {"1.35", "", "capacityRequests", "feature gate DRAConsumableCapacity (alpha) is off"},
      {"1.36", "DRAConsumableCapacity=false", "capacityRequests",
       "feature gate DRAConsumableCapacity (beta) is off (--feature-gates)"},
      {"1.36", "", "capacityRequests", ""},
      {"1.33", "", "extendedResourceName", "DRAExtendedResource, which exists from 1.34"},
      {"1.35", "", "extendedResourceName", "DRAExtendedResource (alpha) is off by default"},
      {"1.36", "", "extendedResourceName", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.version + " " + c.gates + " " + c.field);
    input_ = EngineInput();
    UseRelease(c.version, c.gates);
    api::GpuProfileSpec& spec = Add("p");
    if (c.field == "fallback") {
      spec.fallback = {"q"};
      Add("q");
    } else if (c.field == "tolerations") {
      spec.tolerations = {{"gpu.nvidia.com/xid", "Exists", "", "NoSchedule", std::nullopt}};
    } else if (c.field == "capacityRequests") {
      spec.capacity_requests = {{"memory", Q("10Gi")}};
    } else {
      spec.extended_resource_name = "example.com/gpu";
    }
    const DesiredState state = Run({testing::kSampleFleet});
    const ProfileOutcome& p = Outcome(state, "p");
    if (c.expected.empty()) {
      EXPECT_TRUE(p.valid) << p.problems;
      EXPECT_NE(ClassOf(state, "p"), nullptr);
      continue;
    }
    EXPECT_FALSE(p.valid);
    EXPECT_EQ(p.stalled_reason, kReasonFeatureNotServed);
    EXPECT_EQ(Cond(p, meta::kConditionStalled).reason, kReasonFeatureNotServed);
    EXPECT_THAT(Cond(p, meta::kConditionStalled).message, HasSubstr(c.expected));
    EXPECT_EQ(ClassOf(state, "p"), nullptr);  // nothing partial
    for (const TemplateSet& set : state.template_sets) {
      EXPECT_NE(set.prototype.metadata.name, "p");
    }
  }
}

// --- Capacity requests and tolerations -----------------------------------------------------

TEST_F(CapabilitiesTest, CapacityRequestsSelectSharableDevicesAndCountClaims) {
  UseRelease("1.36");
  api::GpuProfileSpec& quarter = Add("quarter");
  quarter.capacity_requests = {{"memory", Q("10Gi")}};
  api::GpuProfileSpec& most = Add("most");
  most.capacity_requests = {{"memory", Q("30Gi")}, {"shares", Q("1")}};
  Add("whole");  // no capacity requests: a whole-device profile
  const DesiredState state = Run({kConsumableShares136, kDynamicMig136});

  const ProfileOutcome& q = Outcome(state, "quarter");
  EXPECT_THAT(q.profile.status.selectors, ::testing::Contains("device.allowMultipleAllocations"));
  EXPECT_EQ(q.profile.status.matched_devices, 2);  // only the multi-allocatable GPUs
  ASSERT_TRUE(q.profile.status.schedulable_claims.has_value());
  EXPECT_EQ(*q.profile.status.schedulable_claims, 8);  // 40Gi / 10Gi on each of 2 GPUs
  const ProfileOutcome& m = Outcome(state, "most");
  EXPECT_EQ(*m.profile.status.schedulable_claims, 2);  // 30Gi fits once per GPU
  EXPECT_FALSE(Outcome(state, "whole").profile.status.schedulable_claims.has_value());

  ASSERT_EQ(state.template_sets.size(), 3u);
  for (const TemplateSet& set : state.template_sets) {
    if (set.prototype.metadata.name != "quarter") continue;
    EXPECT_THAT(set.prototype.requests[0].capacity_requests,
                ElementsAre(Pair("memory", Q("10Gi"))));
  }
}

// Shared devices report room left in claims: a claim consuming 25Gi of gpu-0 leaves 15Gi (one
// more 10Gi claim); gpu-1, untouched, takes four. The held device is no longer a free device.
TEST_F(CapabilitiesTest, ClaimsOnSharedDevicesLeaveRoomCountedInClaims) {
  UseRelease("1.36");
  api::GpuProfileSpec& quarter = Add("quarter");
  quarter.capacity_requests = {{"memory", Q("10Gi")}};
  Add("whole");
  input_.namespaces = {Ns("ml-train"), Ns("ml-infer")};
  const dra::Inventory inventory = LoadInventory({kConsumableShares136});

  dra::ResourceClaim held;
  held.namespace_name = "ml-train";
  held.strings = dra::ClaimStrings("ml-train", "shared", "", "");
  dra::ClaimRequest request;
  request.name = "gpu";
  request.device_classes = {"quarter"};
  request.requests_capacity = true;
  held.requests.push_back(request);
  held.allocated = true;
  held.results.push_back({"gpu", "gpu.nvidia.com", "a100-shared-node-2", "gpu-0"});
  held.consumed_capacity = std::make_shared<const std::vector<dra::ConsumedCapacity>>(
      std::vector<dra::ConsumedCapacity>{{0, "memory", Q("25Gi")}});
  const std::vector<const dra::ResourceClaim*> claims = {&held};

  const DesiredState without = ComputeDesiredState(input_, inventory);
  const DesiredState with = ComputeDesiredState(input_, inventory, nullptr, claims);
  const api::GpuProfileStatus& before = Outcome(without, "quarter").profile.status;
  ASSERT_TRUE(before.allocation.free_claims.has_value());
  EXPECT_EQ(*before.allocation.free_claims, 8);
  const api::GpuProfileStatus& after = Outcome(with, "quarter").profile.status;
  ASSERT_TRUE(after.allocation.free_claims.has_value());
  EXPECT_EQ(*after.allocation.free_claims, 5);  // 15Gi / 10Gi on gpu-0, 40Gi / 10Gi on gpu-1
  EXPECT_EQ(*after.schedulable_claims, 8);      // what the devices hold at once, unchanged
  EXPECT_EQ(after.allocation.allocated_claims, 1);
  EXPECT_EQ(after.allocation.free_devices, 1);
  EXPECT_FALSE(Outcome(with, "whole").profile.status.allocation.free_claims.has_value());

  // A claim that holds a device that is not shared leaves it no room: the same claim without
  // consumed capacity on a device without allowMultipleAllocations is covered by freeDevices;
  // here, the shared device's claims recorded nothing, so the whole device is still room.
  held.consumed_capacity = nullptr;
  const DesiredState unrecorded = ComputeDesiredState(input_, inventory, nullptr, claims);
  EXPECT_EQ(*Outcome(unrecorded, "quarter").profile.status.allocation.free_claims, 8);
}

TEST_F(CapabilitiesTest, TolerationsReachTheRequestAndTheSchedulableCount) {
  UseRelease("1.36", kListTypes);
  api::GpuProfileSpec& plain = Add("plain");
  plain.selector.product_names = {"NVIDIA A100-SXM4-40GB"};
  api::GpuProfileSpec& tolerant = Add("tolerant");
  tolerant.selector.product_names = {"NVIDIA A100-SXM4-40GB"};
  tolerant.tolerations = {{"gpu.nvidia.com/xid", "Exists", "", "NoSchedule", std::nullopt}};
  const DesiredState state = Run({kDynamicMig136});

  EXPECT_EQ(Outcome(state, "plain").profile.status.schedulable_devices, 1);
  EXPECT_EQ(Outcome(state, "plain").profile.status.tainted_devices, 1);
  EXPECT_EQ(Outcome(state, "tolerant").profile.status.schedulable_devices, 2);
  EXPECT_EQ(Outcome(state, "tolerant").profile.status.tainted_devices, 0);
  for (const TemplateSet& set : state.template_sets) {
    if (set.prototype.metadata.name != "tolerant") continue;
    ASSERT_EQ(set.prototype.requests[0].tolerations.size(), 1u);
    EXPECT_EQ(set.prototype.requests[0].tolerations[0].key, "gpu.nvidia.com/xid");
    EXPECT_EQ(set.prototype.requests[0].tolerations[0].op, "Exists");
  }
}

// --- Extended resource names ---------------------------------------------------------------

TEST_F(CapabilitiesTest, ExtendedResourceNamesAreWrittenPublishedAndNeverShared) {
  UseRelease("1.36");
  Add("first", "2026-01-01T00:00:00Z").extended_resource_name = "example.com/large-memory";
  Add("second", "2026-02-01T00:00:00Z").extended_resource_name = "example.com/large-memory";
  Add("implicit");
  auto foreign = std::make_shared<dra::DeviceClass>();
  foreign->metadata.name = "hand-written";
  foreign->extended_resource_name = "example.com/taken";
  input_.existing_classes.push_back(foreign);
  Add("third").extended_resource_name = "example.com/taken";
  const DesiredState state = Run({testing::kSampleFleet});

  EXPECT_EQ(ClassOf(state, "first")->extended_resource_name, "example.com/large-memory");
  EXPECT_EQ(Outcome(state, "first").profile.status.extended_resource_name,
            "example.com/large-memory");
  EXPECT_EQ(Cond(Outcome(state, "first"), meta::kConditionConflict).status,
            meta::ConditionStatus::kFalse);

  const ProfileOutcome& second = Outcome(state, "second");
  EXPECT_EQ(ClassOf(state, "second")->extended_resource_name, std::nullopt);
  EXPECT_EQ(second.profile.status.extended_resource_name, "");
  EXPECT_EQ(Cond(second, meta::kConditionConflict).message,
            "extendedResourceName example.com/large-memory is claimed by the older GpuProfile "
            "first");

  EXPECT_EQ(Outcome(state, "implicit").profile.status.extended_resource_name,
            "deviceclass.resource.kubernetes.io/implicit");
  EXPECT_EQ(ClassOf(state, "implicit")->extended_resource_name, std::nullopt);

  EXPECT_EQ(Cond(Outcome(state, "third"), meta::kConditionConflict).message,
            "extendedResourceName example.com/taken is already on DeviceClass hand-written, "
            "which is not managed by gpu-profile-operator");
  EXPECT_EQ(ClassOf(state, "third")->extended_resource_name, std::nullopt);

  // Without DRAExtendedResource nothing is published.
  input_ = EngineInput();
  UseRelease("1.35");
  Add("implicit");
  EXPECT_EQ(Outcome(Run({testing::kSampleFleet}), "implicit").profile.status.extended_resource_name,
            "");
}

// --- Quota ---------------------------------------------------------------------------------

TEST_F(CapabilitiesTest, QuotaIsOneResourceQuotaPerTargetedNamespace) {
  UseRelease("1.36");
  api::GpuProfileSpec& spec = Add("large-memory");
  spec.claim_template.namespaces = {"ml-train", "ml-infer"};
  spec.quota = api::QuotaSpec{4};
  spec.extended_resource_name = "example.com/large-memory";
  api::GpuProfileSpec& plain = Add("plain");
  plain.quota = api::QuotaSpec{2};
  auto foreign = std::make_shared<meta::ResourceQuota>();
  foreign->metadata.name = QuotaName("plain");
  foreign->metadata.namespace_name = "ml-train";
  input_.existing_quotas.push_back(foreign);
  const DesiredState state = Run({testing::kSampleFleet});

  const std::vector<meta::ResourceQuota> quotas = state.Quotas();
  ASSERT_EQ(quotas.size(), 2u);
  EXPECT_EQ(quotas[0].metadata.namespace_name, "ml-infer");
  EXPECT_EQ(quotas[0].metadata.name, "gpu-profile-large-memory");
  EXPECT_EQ(quotas[0].metadata.labels.at(std::string(kProfileLabel)), "large-memory");
  EXPECT_THAT(quotas[0].hard,
              ElementsAre(Pair("large-memory.deviceclass.resource.k8s.io/devices", Q("4")),
                          Pair("requests.example.com/large-memory", Q("4"))));
  EXPECT_EQ(quotas[1].metadata.namespace_name, "ml-train");
  const ProfileOutcome& p = Outcome(state, "large-memory");
  EXPECT_EQ(p.profile.status.quotas.desired, 2);
  EXPECT_EQ(p.profile.status.quotas.ready, 2);

  const ProfileOutcome& q = Outcome(state, "plain");
  EXPECT_EQ(q.profile.status.quotas.desired, 1);
  EXPECT_EQ(q.profile.status.quotas.ready, 0);
  EXPECT_EQ(Cond(q, meta::kConditionConflict).message,
            "ResourceQuota ml-train/gpu-profile-plain exists and is not managed by "
            "gpu-profile-operator");
}

}  // namespace
}  // namespace profile_capabilities_test
}  // namespace gpuprofile::profile
