// The operator (GpuProfileOperator, in process) against kube-emulator releases whose
// resource.k8s.io it cannot use: only a version it does not read (v1alpha3, which 1.33+ serves
// with DeviceTaintRule alone when an admin switches v1 off and v1alpha3 on), or no version at all.
// Every profile is Stalled with reason DRANotServed naming what discovery found, readiness says
// the same, and the operator keeps running.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "controller/dra/manifest_reader.h"
#include "controller/kube/http_transport.h"
#include "controller/reconciler/cluster_objects.h"
#include "controller/reconciler/gpu_profile_operator.h"
#include "controller/runtime/metrics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::reconciler {
namespace dra_not_served_test {
namespace {

using kube::testing::KubeEmulator;
using ::testing::HasSubstr;

class DraNotServedTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> emulator_args) {
    emulator_args.push_back("-f");
    emulator_args.push_back(gpuprofile::testing::SourceDir() + "/crds");
    emulator_ = std::make_unique<KubeEmulator>(std::move(emulator_args));
    ASSERT_TRUE(emulator_->ok()) << emulator_->error();
    client_ = emulator_->NewClient();
    OperatorOptions options;
    options.client = client_.get();
    options.clock = runtime::RealClock::Default();
    options.metrics = &metrics_;
    options.workers = 1;
    options.status_interval = absl::ZeroDuration();
    options.dra_poll_interval = absl::Milliseconds(100);
    options.log = [this](const std::string& line) {
      absl::MutexLock lock(&log_mu_);
      log_.push_back(line);
    };
    absl::StatusOr<std::unique_ptr<GpuProfileOperator>> op = GpuProfileOperator::Create(options);
    ASSERT_TRUE(op.ok()) << op.status();
    operator_ = *std::move(op);
    operator_->StartCaches();
    operator_->StartWorkers();
    absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests(
        {gpuprofile::testing::SourceDir() + "/config/samples/profiles/large-memory.yaml"});
    ASSERT_TRUE(objects.ok()) << objects.status();
    ASSERT_TRUE(client_->Create(GpuProfilesPath(), (*objects)[0].object).ok());
  }

  void TearDown() override {
    if (operator_) operator_->Stop();
  }

  // Polls (real time, the operator runs on its own threads) until `check` holds or 20 s pass.
  static bool Eventually(const std::function<bool()>& check) {
    return e2e::testing::PollUntil(check, absl::Seconds(20));
  }

  // The profile's Stalled condition once it is DRANotServed; null until then.
  nlohmann::json Stalled() {
    absl::StatusOr<nlohmann::json> p = client_->Get(GpuProfilesPath().WithName("large-memory"));
    if (!p.ok() || !p->contains("status")) return nullptr;
    for (const nlohmann::json& c : (*p)["status"].value("conditions", nlohmann::json::array())) {
      if (c.value("type", "") == "Stalled" && c.value("status", "") == "True" &&
          c.value("reason", "") == "DRANotServed") {
        return c;
      }
    }
    return nullptr;
  }

  bool Logged(const std::string& text) {
    absl::MutexLock lock(&log_mu_);
    for (const std::string& line : log_) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }

  std::unique_ptr<KubeEmulator> emulator_;
  std::unique_ptr<kube::RestClient> client_;
  runtime::MetricsRegistry metrics_;
  std::unique_ptr<GpuProfileOperator> operator_;
  absl::Mutex log_mu_;
  std::vector<std::string> log_ ABSL_GUARDED_BY(log_mu_);
};

TEST_F(DraNotServedTest, OnlyAnUnknownVersionIsNamedInStatusLogAndReadiness) {
  Start({"--kube-version", "1.37", "--runtime-config",
         "resource.k8s.io/v1=false,resource.k8s.io/v1alpha3=true"});
  ASSERT_TRUE(Eventually([&] { return !Stalled().is_null(); }));
  const std::string message = Stalled()["message"];
  EXPECT_THAT(message, HasSubstr("serves resource.k8s.io only in version v1alpha3, which this "
                                 "operator does not read (it reads v1, v1beta2, v1beta1"));
  EXPECT_THAT(message, HasSubstr("without a restart"));
  EXPECT_TRUE(
      Logged("Dynamic Resource Allocation is not available: the API server serves "
             "resource.k8s.io only in version v1alpha3"));
  EXPECT_TRUE(absl::IsNotFound(operator_->DraServed()));
  EXPECT_THAT(operator_->DraServed().message(), HasSubstr("v1alpha3"));
}

// The admin switches v1 on (kube-emulator's /emulator/runtime-config: what restarting the API
// server with the new --runtime-config does): the operator notices on its next discovery poll,
// without a restart, and the profile leaves DRANotServed.
TEST_F(DraNotServedTest, RecoversWhenV1IsServed) {
  Start({"--kube-version", "1.37", "--runtime-config",
         "resource.k8s.io/v1=false,resource.k8s.io/v1alpha3=true"});
  ASSERT_TRUE(Eventually([&] { return !Stalled().is_null(); }));
  kube::HttpRequest request;
  request.method = "POST";
  request.path = "/emulator/runtime-config";
  request.body = "resource.k8s.io/v1=true";
  request.headers = {{"Content-Type", "text/plain"}};
  absl::StatusOr<kube::HttpResponse> switched = emulator_->transport()->Send(request);
  ASSERT_TRUE(switched.ok()) << switched.status();
  ASSERT_EQ(switched->status, 200) << switched->body;
  EXPECT_TRUE(Eventually([&] { return Stalled().is_null() && operator_->DraServed().ok(); }));
  EXPECT_TRUE(Logged("resource.k8s.io/v1 is served"));
}

TEST_F(DraNotServedTest, NoVersionAtAllSaysSo) {
  Start({"--kube-version", "1.36", "--runtime-config", "resource.k8s.io/v1=false"});
  ASSERT_TRUE(Eventually([&] { return !Stalled().is_null(); }));
  EXPECT_THAT(Stalled()["message"].get<std::string>(),
              HasSubstr("the API server serves no resource.k8s.io version"));
  EXPECT_TRUE(absl::IsNotFound(operator_->DraServed()));
}

}  // namespace
}  // namespace dra_not_served_test
}  // namespace gpuprofile::reconciler
