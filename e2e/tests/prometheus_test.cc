// File: e2e/tests/prometheus_test.cc
// The alerts and the dashboard against the real binaries: kube-emulator with the example fleet,
// the operator (`run`, leader election on, metrics on a free port) and Debian's real
// `prometheus` scraping it every second and evaluating config/prometheus's rules every second.
//  - Every metric name that an alert expression (config/prometheus/prometheusrule.yaml, which
//    scripts/check-config.sh keeps equal to the plain rules file) or a dashboard query
//    (config/grafana/gpu-profile-operator.json) uses is on the live /metrics of the operator, once
//    the scenario has given every family a series (a pending claim, a failed write); `up` is
//    Prometheus' own.
//  - Prometheus loads every rule without error and runs every dashboard query without error.
//  - The story: a profile that no device matches makes GpuProfileUnsatisfiable fire with its
//    name (Prometheus' /api/v1/alerts); a spec that matches makes it resolve.
// The real rules wait 15 minutes (`for: 15m`): the test loads a copy of the real rules file in
// which every `for:` is 2s, and nothing else differs (the copy is made here from the file).
// Skipped, saying so, when the prometheus binary is not installed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/tests/story_cluster.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::e2e::testing {
namespace prometheus_test {
namespace {

using json = nlohmann::json;
using ::testing::IsEmpty;

constexpr char kPrometheusRule[] = "config/prometheus/prometheusrule.yaml";
constexpr char kRulesFile[] = "config/prometheus/gpu-profile-operator.rules.yaml";
constexpr char kDashboard[] = "config/grafana/gpu-profile-operator.json";
// How long Prometheus gets to see a change: a scrape (1 s), an evaluation (1 s) and the
// shortened `for:` (2 s), with room for a loaded machine.
constexpr absl::Duration kAlertDeadline = absl::Seconds(60);

// The metric names a PromQL expression reads: identifiers outside label matchers ({...}),
// range and subquery brackets ([...]) and strings, that are not a function call, a keyword, an
// aggregation operator or the label list of by/without/on/ignoring/group_left/group_right.
std::set<std::string> MetricNamesIn(const std::string& expr) {
  static const std::set<std::string>* const kKeywords = new std::set<std::string>{
      "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left",
      "group_right", "inf", "nan", "atan2",
      // Aggregation operators: `sum by (x) (...)` puts no "(" right after the name.
      "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk",
      "topk", "quantile"};
  static const std::set<std::string>* const kLabelLists = new std::set<std::string>{
      "by", "without", "on", "ignoring", "group_left", "group_right"};
  std::set<std::string> names;
  size_t i = 0;
  const size_t n = expr.size();
  const auto skip_to = [&](char close) {
    for (++i; i < n && expr[i] != close; ++i) {
      if (expr[i] == '"' || expr[i] == '\'') {
        const char q = expr[i];
        for (++i; i < n && expr[i] != q; ++i) {
          if (expr[i] == '\\') ++i;
        }
      }
    }
    ++i;
  };
  const auto ident_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  };
  while (i < n) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '`') {
      skip_to(c);
    } else if (c == '{') {
      skip_to('}');
    } else if (c == '[') {
      skip_to(']');
    } else if (c == '$') {  // a dashboard variable ($__rate_interval)
      for (++i; i < n && ident_char(expr[i]); ++i) {
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      for (++i; i < n && (ident_char(expr[i]) || expr[i] == '.'); ++i) {
      }
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':') {
      const size_t start = i;
      while (i < n && ident_char(expr[i])) ++i;
      const std::string word = expr.substr(start, i - start);
      size_t next = i;
      while (next < n && std::isspace(static_cast<unsigned char>(expr[next]))) ++next;
      if (kLabelLists->count(word) > 0) {
        if (next < n && expr[next] == '(') {
          i = next;
          skip_to(')');
        }
      } else if (kKeywords->count(word) == 0 && (next >= n || expr[next] != '(')) {
        names.insert(word);
      }
    } else {
      ++i;
    }
  }
  return names;
}

TEST(PrometheusMetricNamesTest, FindsMetricsAndNothingElse) {
  EXPECT_EQ(MetricNamesIn("histogram_quantile(0.99, sum by (controller, le) (rate("
                          "controller_runtime_reconcile_time_seconds_bucket{job=~\"$job\"}"
                          "[$__rate_interval])))"),
            (std::set<std::string>{"controller_runtime_reconcile_time_seconds_bucket"}));
  EXPECT_EQ(MetricNamesIn("max by (profile) (a_b) > 0\nand on (profile)\nmax by (profile) (c) "
                          "== 0 unless on (job) max by (job) (d{x=\"e\"}) == 0"),
            (std::set<std::string>{"a_b", "c", "d"}));
  EXPECT_EQ(MetricNamesIn("label_replace(sum(increase(x[10m])), \"name\", \"$1\", \"controller\","
                          " \"(.*)\") == 0 or absent(up{job=~\".*y.*\"} == 1) and time() - z"),
            (std::set<std::string>{"x", "up", "z"}));
}

// Every series name of a text exposition (histograms give _bucket, _sum and _count).
std::set<std::string> ExposedNames(const std::string& exposition) {
  std::set<std::string> names;
  for (absl::string_view line : absl::StrSplit(exposition, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    names.insert(std::string(line.substr(0, line.find_first_of("{ "))));
  }
  return names;
}

// A port nothing listens on right now (Prometheus cannot listen on port 0 and say which port it
// got). Another process may take it before Prometheus does: the caller retries on failure.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// The real rules file with every `for:` shortened to `for_value`; how many were changed.
std::string ShortenFor(const std::string& rules, const std::string& for_value, int* changed) {
  std::vector<std::string> lines = absl::StrSplit(rules, '\n');
  *changed = 0;
  for (std::string& line : lines) {
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || !absl::StartsWith(line.substr(indent), "for: ")) continue;
    line = absl::StrCat(line.substr(0, indent), "for: ", for_value);
    ++*changed;
  }
  return absl::StrJoin(lines, "\n");
}

// Debian's prometheus, started on a free port with a config written into `dir`, stopped with
// SIGTERM when destroyed.
class PrometheusProcess {
 public:
  ~PrometheusProcess() { Stop(); }

  // Starts it and waits for /-/ready; retries on another port when the chosen one was taken.
  bool Start(const ScratchDir& dir, const std::string& config_file) {
    for (int attempt = 0; attempt < 5; ++attempt) {
      const int port = FreePort();
      if (port == 0) continue;
      log_path_ = dir.File(absl::StrCat("prometheus-", attempt, ".log"));
      pid_ = SpawnProcess({"prometheus", absl::StrCat("--config.file=", config_file),
                           absl::StrCat("--storage.tsdb.path=", dir.File("tsdb")),
                           absl::StrCat("--web.listen-address=127.0.0.1:", port),
                           "--log.level=warn"},
                          log_path_, log_path_, /*append=*/false);
      if (pid_ <= 0) return false;
      http_ = std::make_unique<RawHttpClient>(absl::StrCat("http://127.0.0.1:", port));
      bool exited = false;
      const bool ready = PollUntil(
          [&] {
            if (WaitForExit(pid_, absl::ZeroDuration()) != -2) {
              exited = true;
              return true;
            }
            return http_->Get("/-/ready").status == 200;
          },
          absl::Seconds(30));
      if (ready && !exited) return true;
      Stop();
      if (!exited) return false;  // running but not ready: no point in another port
    }
    return false;
  }

  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    if (WaitForExit(pid_, absl::Seconds(10)) == -2) {
      ::kill(pid_, SIGKILL);
      WaitForExit(pid_, absl::Seconds(10));
    }
    pid_ = -1;
  }

  // `data` of a successful API answer; null otherwise.
  json Api(const std::string& path_and_query) {
    RawResponse r = http_->Get(path_and_query);
    json body = r.Json();
    if (r.status != 200 || body.is_discarded() || body.value("status", "") != "success") {
      last_error_ = absl::StrCat(path_and_query, ": ", r.status, " ", r.body);
      return nullptr;
    }
    return body["data"];
  }

  // The active alerts named `name` ("pending" or "firing").
  std::vector<json> Alerts(const std::string& name) {
    std::vector<json> out;
    json data = Api("/api/v1/alerts");
    if (data.is_null()) return out;
    for (const json& a : data.value("alerts", json::array())) {
      if (a["labels"].value("alertname", "") == name) out.push_back(a);
    }
    return out;
  }

  std::string Log() const { return ReadFile(log_path_); }
  const std::string& last_error() const { return last_error_; }

 private:
  pid_t pid_ = -1;
  std::string log_path_;
  std::unique_ptr<RawHttpClient> http_;
  std::string last_error_;
};

// Whether one of `alerts` is firing for profile `profile`.
bool FiringFor(const std::vector<json>& alerts, const std::string& profile) {
  for (const json& a : alerts) {
    if (a.value("state", "") == "firing" && a["labels"].value("profile", "") == profile) {
      return true;
    }
  }
  return false;
}

class PrometheusTest : public ::testing::Test, public StoryCluster {
 protected:
  void SetUp() override {
    if (RunCommand({"prometheus", "--version"}, absl::Seconds(20)).exit_code != 0) {
      GTEST_SKIP() << "the prometheus binary is not installed (Debian package prometheus, "
                      "scripts/install-deps.sh)";
    }
  }
  void TearDown() override {
    if (HasFailure() && prometheus_ != nullptr) {
      std::string log = prometheus_->Log();
      if (log.size() > 4000) log = log.substr(log.size() - 4000);
      std::fprintf(stderr, "---- prometheus (last 4000 bytes)\n%s\n", log.c_str());
    }
    if (prometheus_ != nullptr) prometheus_->Stop();
    StopStory(HasFailure());
  }

  void StartCluster() {
    kubeconfig_ = scratch_.File("kubeconfig");
    emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
        "--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet"),
        "--kubeconfig-out", kubeconfig_});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    api_ = AdminClient(*emulator_, kubeconfig_);
    std::vector<std::string> args = OperatorTestFlags(kubeconfig_);
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--metrics-bind-address") args[i + 1] = "127.0.0.1:0";
    }
    // Leader election on, so that leader_election_master_status has a series.
    for (const char* flag :
         {"--leader-elect", "--leader-election-namespace", "default",
          "--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1500ms",
          "--leader-elect-retry-period", "300ms"}) {
      args.push_back(flag);
    }
    op_ = std::make_unique<OperatorProcess>(args, scratch_.File("operator.log"));
    ASSERT_TRUE(op_->Start());
    // The port the metrics server got: "... serving metrics address=127.0.0.1:0 port=NNNN".
    ASSERT_TRUE(Eventually([&] {
      for (absl::string_view line : absl::StrSplit(op_->Log(), '\n')) {
        if (!absl::StrContains(line, "serving metrics")) continue;
        const size_t at = line.find(" port=");
        if (at == absl::string_view::npos) continue;
        absl::string_view rest = line.substr(at + 6);
        rest = rest.substr(0, rest.find(' '));
        if (absl::SimpleAtoi(rest, &metrics_port_) && metrics_port_ > 0) return true;
      }
      return false;
    })) << "the operator did not log its metrics port";
    metrics_ = std::make_unique<RawHttpClient>(absl::StrCat("http://127.0.0.1:", metrics_port_));
  }

  std::string Metrics() {
    RawResponse r = metrics_->Get("/metrics");
    return r.status == 200 ? r.body : "";
  }

  // A profile for ml-train whose selector asks for `min_memory` of GPU memory.
  json Profile(const std::string& name, const std::string& min_memory) {
    return {{"apiVersion", "gpuprofile.io/v1alpha1"},
            {"kind", "GpuProfile"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"selector", {{"memory", {{"min", min_memory}}}}},
              {"claimTemplate", {{"namespaces", {"ml-train"}}}}}}};
  }

  // Sets the emulator's injected faults ("" clears them).
  void Faults(const std::string& spec) {
    RawResponse r = api_->Request("POST", "/emulator/faults", spec, "text/plain");
    ASSERT_EQ(r.status, 200) << r.body;
  }

  int metrics_port_ = 0;
  std::unique_ptr<RawHttpClient> metrics_;
  std::unique_ptr<PrometheusProcess> prometheus_;
};

TEST_F(PrometheusTest, AlertsAndDashboardAgainstTheLiveOperator) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  CreateAll("config/samples/namespaces.yaml");
  ASSERT_FALSE(Create(kProfiles, Profile("large-memory", "40Gi")).is_null());
  // No GPU of the fleet has 10 TiB: Satisfiable=False (NoMatchingDevices).
  ASSERT_FALSE(Create(kProfiles, Profile("huge-memory", "10Ti")).is_null());
  ASSERT_TRUE(Eventually([&] {
    return ConditionIs("large-memory", "Ready", "True") &&
           ConditionIs("huge-memory", "Satisfiable", "False");
  })) << ProfileStatus("huge-memory").dump();
  // A pending claim on large-memory's class (the emulator runs no scheduler).
  json pod = UserPod("ml-train", "trainer", "large-memory");
  ASSERT_FALSE(ClaimFor(&pod, "large-memory").is_null());

  // A failed write: one request on GpuProfiles in five answers 409 while the test keeps editing
  // the profile's spec, so the operator keeps writing its status, until a write has failed. The
  // lease's requests never fail: a leader that cannot renew within 1.5 s exits, and nothing here
  // would restart it for Prometheus to scrape.
  ASSERT_NO_FATAL_FAILURE(Faults("error-rate=0.2,error-code=409,error-resource=gpuprofiles"));
  int edits = 0;
  const bool failed_write = Eventually([&] {
    json p = Get(absl::StrCat(kProfiles, "/large-memory"));
    if (!p.is_null()) {
      p["spec"]["description"] = absl::StrCat("edit ", ++edits);
      api_->Put(absl::StrCat(kProfiles, "/large-memory"), p);
    }
    return absl::StrContains(Metrics(), "gpuprofile_operator_write_errors_total{");
  });
  ASSERT_NO_FATAL_FAILURE(Faults(""));
  ASSERT_TRUE(failed_write) << "no write failed under injected 409s (" << edits << " edits)";

  // Every family the alerts and the dashboard read has a series now.
  std::string exposition;
  ASSERT_TRUE(Eventually([&] {
    exposition = Metrics();
    return absl::StrContains(exposition,
                             "gpuprofile_oldest_pending_claim_creation_timestamp_seconds{"
                             "profile=\"large-memory\"}") &&
           absl::StrContains(exposition, "leader_election_master_status{") &&
           absl::StrContains(exposition, "gpunodegroup_status_condition{");
  })) << exposition;
  const std::set<std::string> exposed = ExposedNames(exposition);

  absl::StatusOr<std::vector<dra::ManifestObject>> rule_objects =
      dra::ReadManifests({Src(kPrometheusRule)});
  ASSERT_TRUE(rule_objects.ok()) << rule_objects.status();
  ASSERT_EQ(rule_objects->size(), 1u);
  std::vector<std::string> alert_exprs;
  std::set<std::string> alert_names;
  for (const json& group : (*rule_objects)[0].object["spec"]["groups"]) {
    for (const json& rule : group["rules"]) {
      alert_exprs.push_back(rule.value("expr", ""));
      alert_names.insert(rule.value("alert", ""));
    }
  }
  ASSERT_GE(alert_exprs.size(), 7u);
  const json dashboard = json::parse(ReadFile(Src(kDashboard)), nullptr, false);
  ASSERT_FALSE(dashboard.is_discarded()) << kDashboard << " is not JSON";
  std::vector<std::string> dashboard_exprs;
  for (const json& panel : dashboard["panels"]) {
    for (const json& target : panel.value("targets", json::array())) {
      dashboard_exprs.push_back(target.value("expr", ""));
    }
  }
  for (const json& var : dashboard["templating"]["list"]) {
    if (var.value("type", "") != "query") continue;
    // label_values(METRIC, label): the metric must be there too.
    const std::string text = var["query"].value("query", "");
    absl::string_view q = text;
    absl::ConsumePrefix(&q, "label_values(");
    dashboard_exprs.push_back(std::string(q.substr(0, q.find(','))));
  }
  ASSERT_GE(dashboard_exprs.size(), 15u);
  std::vector<std::string> missing;
  for (const std::vector<std::string>* exprs : {&alert_exprs, &dashboard_exprs}) {
    for (const std::string& expr : *exprs) {
      for (const std::string& name : MetricNamesIn(expr)) {
        if (name != "up" && exposed.count(name) == 0) {
          missing.push_back(absl::StrCat(name, " (in: ", expr, ")"));
        }
      }
    }
  }
  EXPECT_THAT(missing, IsEmpty()) << "names the alerts or the dashboard use that the operator's "
                                     "/metrics does not have";

  // Prometheus with the real rules, `for:` shortened.
  int shortened = 0;
  const std::string rules = ShortenFor(ReadFile(Src(kRulesFile)), "2s", &shortened);
  ASSERT_EQ(shortened, static_cast<int>(alert_exprs.size())) << "one `for:` per alert";
  scratch_.Write("rules.yaml", rules);
  scratch_.Write("prometheus.yml",
                 absl::StrCat("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                              "rule_files:\n- ",
                              scratch_.File("rules.yaml"),
                              "\nscrape_configs:\n- job_name: gpu-profile-operator\n"
                              "  static_configs:\n  - targets: ['127.0.0.1:",
                              metrics_port_, "']\n"));
  prometheus_ = std::make_unique<PrometheusProcess>();
  ASSERT_TRUE(prometheus_->Start(scratch_, scratch_.File("prometheus.yml")))
      << "prometheus did not become ready";

  // Scraped, every rule evaluated without error.
  ASSERT_TRUE(Eventually(
      [&] {
        json up = prometheus_->Api("/api/v1/query?query=up");
        return !up.is_null() && up["result"].size() == 1 &&
               up["result"][0]["value"][1] == "1";
      },
      kAlertDeadline))
      << prometheus_->last_error();
  std::set<std::string> loaded;
  std::vector<std::string> unhealthy;
  ASSERT_TRUE(Eventually(
      [&] {
        json data = prometheus_->Api("/api/v1/rules");
        if (data.is_null()) return false;
        loaded.clear();
        unhealthy.clear();
        bool evaluated = true;
        for (const json& group : data["groups"]) {
          for (const json& rule : group["rules"]) {
            loaded.insert(rule.value("name", ""));
            if (rule.value("health", "") == "unknown") evaluated = false;
            if (rule.value("health", "") == "err") {
              unhealthy.push_back(absl::StrCat(rule.value("name", ""), ": ",
                                               rule.value("lastError", "")));
            }
          }
        }
        return evaluated;
      },
      kAlertDeadline));
  EXPECT_EQ(loaded, alert_names);
  EXPECT_THAT(unhealthy, IsEmpty());
  for (const std::string& expr : dashboard_exprs) {
    const std::string query = absl::StrReplaceAll(
        expr, {{"$__rate_interval", "1m"}, {"$job", ".*"}});
    EXPECT_FALSE(prometheus_->Api(absl::StrCat("/api/v1/query?query=", UrlEncode(query)))
                     .is_null())
        << prometheus_->last_error();
  }

  // The story: huge-memory fires, large-memory does not.
  ASSERT_TRUE(Eventually(
      [&] { return FiringFor(prometheus_->Alerts("GpuProfileUnsatisfiable"), "huge-memory"); },
      kAlertDeadline))
      << prometheus_->Api("/api/v1/alerts").dump();
  const std::vector<json> firing = prometheus_->Alerts("GpuProfileUnsatisfiable");
  EXPECT_EQ(firing.size(), 1u) << json(firing).dump();
  EXPECT_EQ(firing[0]["labels"].value("severity", ""), "warning");
  EXPECT_THAT(firing[0]["annotations"].value("summary", ""), ::testing::HasSubstr("huge-memory"));
  EXPECT_EQ(firing[0]["annotations"].value("runbook_url", ""),
            "docs/monitoring.md#gpuprofileunsatisfiable");

  // Fixed: 40 GiB GPUs exist. Satisfiable=True, and the alert resolves.
  json fixed = Get(absl::StrCat(kProfiles, "/huge-memory"));
  ASSERT_FALSE(fixed.is_null());
  fixed["spec"]["selector"]["memory"]["min"] = "40Gi";
  ASSERT_FALSE(Put(absl::StrCat(kProfiles, "/huge-memory"), fixed).is_null());
  ASSERT_TRUE(Eventually([&] { return ConditionIs("huge-memory", "Satisfiable", "True"); }));
  EXPECT_TRUE(Eventually([&] { return prometheus_->Alerts("GpuProfileUnsatisfiable").empty(); },
                         kAlertDeadline))
      << prometheus_->Api("/api/v1/alerts").dump();

  // Deleted: its series leave /metrics.
  ASSERT_EQ(api_->Delete(absl::StrCat(kProfiles, "/huge-memory")).status, 200);
  EXPECT_TRUE(Eventually([&] {
    const std::string text = Metrics();
    return !text.empty() && !absl::StrContains(text, "profile=\"huge-memory\"");
  })) << Metrics();
}

}  // namespace
}  // namespace prometheus_test
}  // namespace gpuprofile::e2e::testing
