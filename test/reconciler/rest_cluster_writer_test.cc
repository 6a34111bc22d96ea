// File: test/reconciler/rest_cluster_writer_test.cc
// RestClusterWriter's counters over a scripted transport: every write is counted in
// gpuprofile_operator_writes_total, and a failed one also in
// gpuprofile_operator_write_errors_total by its HTTP status code.
#include "controller/reconciler/rest_cluster_writer.h"

#include <string>

#include "absl/status/status.h"
#include "controller/kube/rest_client.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"

namespace gpuprofile::reconciler {
namespace rest_cluster_writer_test {
namespace {

using kube::testing::ErrorReply;
using kube::testing::JsonReply;
using kube::testing::StatusReply;

class RestClusterWriterTest : public ::testing::Test {
 protected:
  RestClusterWriterTest() {
    kube::RestClientOptions client_options;
    client_options.max_retries = 0;  // one request per write
    client_options.qps = 0;
    client_ = std::make_unique<kube::RestClient>(&transport_, client_options);
    ClusterWriterOptions options;
    options.client = client_.get();
    options.writes_total =
        *registry_.RegisterCounter("writes", "help", {"verb", "resource"});
    options.write_errors_total =
        *registry_.RegisterCounter("errors", "help", {"verb", "resource", "code"});
    writes_ = options.writes_total;
    errors_ = options.write_errors_total;
    writer_ = std::make_unique<RestClusterWriter>(std::move(options));
  }
  // The error counter's value; -1 when the series does not exist.
  double Errors(const std::string& verb, const std::string& resource, const std::string& code) {
    runtime::Counter* c = errors_->Find({verb, resource, code});
    return c == nullptr ? -1 : c->Value();
  }

  kube::testing::FakeTransport transport_;
  runtime::MetricsRegistry registry_;
  std::unique_ptr<kube::RestClient> client_;
  runtime::CounterFamily* writes_ = nullptr;
  runtime::CounterFamily* errors_ = nullptr;
  std::unique_ptr<RestClusterWriter> writer_;
};

TEST_F(RestClusterWriterTest, ASuccessfulWriteIsNoError) {
  transport_.Push(JsonReply(200, {{"kind", "GpuProfile"}}));
  ASSERT_TRUE(writer_->PatchProfileStatus("p", {{"matchedDevices", 1}}).ok());
  EXPECT_DOUBLE_EQ(writes_->Find({"patch", "gpuprofiles/status"})->Value(), 1);
  EXPECT_EQ(registry_.TextExposition().find("errors"), std::string::npos);
}

TEST_F(RestClusterWriterTest, AFailedWriteIsCountedByItsCode) {
  transport_.Push(StatusReply(422, "Invalid", "status.x: Invalid value"));
  transport_.Push(StatusReply(403, "Forbidden", "forbidden"));
  transport_.Push(StatusReply(403, "Forbidden", "forbidden"));
  EXPECT_FALSE(writer_->PatchProfileStatus("p", {{"matchedDevices", 1}}).ok());
  EXPECT_FALSE(writer_->DeleteNodeGroup("g", "u1").ok());
  EXPECT_FALSE(writer_->DeleteNodeGroup("g", "u1").ok());
  EXPECT_DOUBLE_EQ(Errors("patch", "gpuprofiles/status", "422"), 1);
  EXPECT_DOUBLE_EQ(Errors("delete", "gpunodegroups", "403"), 2);
  EXPECT_DOUBLE_EQ(writes_->Find({"delete", "gpunodegroups"})->Value(), 2);
}

TEST_F(RestClusterWriterTest, NoResponseIsCountedAsError) {
  transport_.Push(ErrorReply(absl::UnavailableError("connection refused")));
  EXPECT_FALSE(writer_->PatchNodeGroupStatus("g", {{"devices", 1}}).ok());
  EXPECT_DOUBLE_EQ(Errors("patch", "gpunodegroups/status", "<error>"), 1);
}

TEST_F(RestClusterWriterTest, ADeleteThatFindsNothingIsNoError) {
  transport_.Push(StatusReply(404, "NotFound", "gpunodegroups \"g\" not found"));
  EXPECT_TRUE(writer_->DeleteNodeGroup("g", "u1").ok());
  EXPECT_EQ(Errors("delete", "gpunodegroups", "404"), -1);
}

TEST_F(RestClusterWriterTest, AGatedWriteIsNeitherIssuedNorAnError) {
  ClusterWriterOptions options;
  options.client = client_.get();
  options.may_write = [] { return false; };
  options.writes_total = writes_;
  options.write_errors_total = errors_;
  RestClusterWriter follower(std::move(options));
  EXPECT_FALSE(follower.PatchProfileStatus("p", {{"matchedDevices", 1}}).ok());
  EXPECT_EQ(transport_.request_count(), 0u);
  EXPECT_EQ(registry_.TextExposition(), "");
}

}  // namespace
}  // namespace rest_cluster_writer_test
}  // namespace gpuprofile::reconciler
