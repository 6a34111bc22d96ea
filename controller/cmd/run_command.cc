// File: controller/cmd/run_command.cc
#include "controller/cmd/run_command.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "controller/cmd/args.h"
#include "controller/cmd/exit_codes.h"
#include "controller/cmd/logger.h"
#include "controller/cmd/malloc_trimmer.h"
#include "controller/cmd/secure_metrics.h"
#include "controller/cmd/version.h"
#include "controller/kube/transport_factory.h"
#include "controller/kube/endpoint_server.h"
#include "controller/kube/event_rest_sink.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/lease_rest_client.h"
#include "controller/kube/rest_client.h"
#include "controller/kueue/kueue_config.h"
#include "controller/reconciler/gpu_profile_operator.h"
#include "controller/runtime/async_event_sink.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/health_checks.h"
#include "controller/runtime/leader_elector.h"
#include "controller/runtime/manager.h"
#include "controller/runtime/metrics.h"
#include "controller/runtime/shutdown_signal.h"

namespace gpuprofile::cmd {
namespace {

constexpr char kRunUsage[] =
    "usage: gpu-profile-controller run [--kubeconfig PATH] [--context NAME]\n"
    "         [--leader-elect[=true|false]] [--leader-election-namespace NS]\n"
    "         [--leader-election-id NAME] [--leader-elect-lease-duration 15s]\n"
    "         [--leader-elect-renew-deadline 10s] [--leader-elect-retry-period 2s]\n"
    "         [--metrics-bind-address :8080|0] [--health-probe-bind-address :8081|0]\n"
    "         [--metrics-secure[=true|false]] [--metrics-cert-path DIR]\n"
    "         [--metrics-cert-name tls.crt] [--metrics-cert-key tls.key]\n"
    "         [--kube-api-qps 50] [--kube-api-burst 100] [--log-format text|json]\n"
    "         [--log-level debug|info|warn|error] [--workers 4]\n"
    "         [--graceful-shutdown-timeout 30s] [--status-update-interval 1s]\n"
    "         [--dra-discovery-interval 10s] [--kube-version 1.32..1.37]\n"
    "         [--feature-gates NAME=true,...] [--malloc-trim-interval 1s (0: never)]\n"
    "         [--malloc-mmap-threshold 131072 (bytes; 0: glibc's default)]\n"
    "         [--kueue-config configmap/kueue-system/kueue-manager-config[:KEY]]\n"
    "         [--http-client sockets|cpprest]\n";

struct RunFlags {
  kube::ConfigFlags config;
  bool leader_elect = false;
  std::string lease_namespace;
  std::string lease_name = "gpu-profile-operator.gpuprofile.io";
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  std::string metrics_address = ":8080";
  std::string probe_address = ":8081";
  SecureMetricsFlags secure_metrics;  // --metrics-secure and its certificate (secure_metrics.h)
  double qps = 50;
  int burst = 100;
  LogFormat log_format = LogFormat::kText;
  LogLevel log_level = LogLevel::kInfo;
  int workers = 4;
  absl::Duration grace = absl::Seconds(30);
  absl::Duration status_interval = absl::Seconds(1);
  absl::Duration dra_poll = absl::Seconds(10);
  absl::Duration malloc_trim_interval = absl::Seconds(1);  // see malloc_trimmer.h
  int64_t malloc_mmap_threshold = 128 * 1024;               // likewise
  std::optional<KubeVersion> kube_version;
  // --feature-gates, joined; checked against the cluster's version once it is known.
  std::string feature_gates;
  // --kueue-config: Kueue's Configuration ConfigMap, for the KueueMapped condition.
  std::optional<kueue::ConfigMapRef> kueue_config;
  // --http-client: the project's sockets (default) or cpprestsdk (transport_factory.h).
  kube::HttpClientKind http_client = kube::HttpClientKind::kSockets;
};

absl::Status ParseDurationFlag(const ParsedArgs& parsed, const std::string& name,
                               absl::Duration* out) {
  if (!parsed.Has(name)) return absl::OkStatus();
  const std::string text = parsed.Get(name);
  if (!absl::ParseDuration(text, out) || *out < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": \"", text, "\" is not a duration such as 15s or 500ms"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RunFlags> ParseRunFlags(const std::vector<std::string>& args) {
  std::vector<FlagSpec> specs = {
      {{"--kubeconfig"}},
      {{"--context"}},
      {{"--leader-elect"}, false},
      {{"--leader-election-namespace"}},
      {{"--leader-election-id"}},
      {{"--leader-elect-lease-duration"}},
      {{"--leader-elect-renew-deadline"}},
      {{"--leader-elect-retry-period"}},
      {{"--metrics-bind-address"}},
      {{"--health-probe-bind-address"}},
      {{"--kube-api-qps"}},
      {{"--kube-api-burst"}},
      {{"--log-format"}},
      {{"--log-level"}},
      {{"--workers"}},
      {{"--graceful-shutdown-timeout"}},
      {{"--status-update-interval"}},
      {{"--dra-discovery-interval"}},
      {{"--malloc-trim-interval"}},
      {{"--malloc-mmap-threshold"}},
      {{"--kube-version"}},
      {{"--kueue-config"}},
      {{"--http-client"}},
      kFeatureGatesFlag,
  };
  for (FlagSpec& spec : SecureMetricsFlagSpecs()) specs.push_back(std::move(spec));
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, specs);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->positional.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("run takes no positional arguments (got \"", parsed->positional[0], "\")"));
  }
  RunFlags f;
  f.config.kubeconfig = parsed->Get("--kubeconfig");
  f.config.context = parsed->Get("--context");
  f.leader_elect = parsed->Get("--leader-elect", "false") == "true";
  f.lease_namespace = parsed->Get("--leader-election-namespace");
  f.lease_name = parsed->Get("--leader-election-id", f.lease_name);
  for (const auto& [name, out] : std::vector<std::pair<std::string, absl::Duration*>>{
           {"--leader-elect-lease-duration", &f.lease_duration},
           {"--leader-elect-renew-deadline", &f.renew_deadline},
           {"--leader-elect-retry-period", &f.retry_period},
           {"--graceful-shutdown-timeout", &f.grace},
           {"--status-update-interval", &f.status_interval},
           {"--dra-discovery-interval", &f.dra_poll},
           {"--malloc-trim-interval", &f.malloc_trim_interval}}) {
    absl::Status status = ParseDurationFlag(*parsed, name, out);
    if (!status.ok()) return status;
  }
  f.metrics_address = parsed->Get("--metrics-bind-address", f.metrics_address);
  f.probe_address = parsed->Get("--health-probe-bind-address", f.probe_address);
  absl::StatusOr<SecureMetricsFlags> secure_metrics = ParseSecureMetricsFlags(*parsed);
  if (!secure_metrics.ok()) return secure_metrics.status();
  f.secure_metrics = *std::move(secure_metrics);
  if (parsed->Has("--kube-api-qps") && !absl::SimpleAtod(parsed->Get("--kube-api-qps"), &f.qps)) {
    return absl::InvalidArgumentError("--kube-api-qps: not a number");
  }
  if (parsed->Has("--kube-api-burst") &&
      (!absl::SimpleAtoi(parsed->Get("--kube-api-burst"), &f.burst) || f.burst < 1)) {
    return absl::InvalidArgumentError("--kube-api-burst: not a positive integer");
  }
  // Up to 32 MiB, glibc's own ceiling for the threshold.
  if (parsed->Has("--malloc-mmap-threshold") &&
      (!absl::SimpleAtoi(parsed->Get("--malloc-mmap-threshold"), &f.malloc_mmap_threshold) ||
       f.malloc_mmap_threshold < 0 || f.malloc_mmap_threshold > (int64_t{32} << 20))) {
    return absl::InvalidArgumentError(
        "--malloc-mmap-threshold: not a number of bytes from 0 to 33554432");
  }
  if (parsed->Has("--workers") &&
      (!absl::SimpleAtoi(parsed->Get("--workers"), &f.workers) || f.workers < 1)) {
    return absl::InvalidArgumentError("--workers: not a positive integer");
  }
  absl::StatusOr<LogFormat> format = ParseLogFormat(parsed->Get("--log-format", "text"));
  if (!format.ok()) return format.status();
  f.log_format = *format;
  absl::StatusOr<LogLevel> level = ParseLogLevel(parsed->Get("--log-level", "info"));
  if (!level.ok()) return level.status();
  f.log_level = *level;
  if (parsed->Has("--kube-version")) {
    absl::StatusOr<KubeVersion> kube = KubeVersion::Parse(parsed->Get("--kube-version"));
    if (!kube.ok()) return kube.status();
    f.kube_version = *kube;
  }
  if (parsed->Has("--kueue-config")) {
    absl::StatusOr<kueue::ConfigMapRef> ref =
        kueue::ParseConfigMapRef(parsed->Get("--kueue-config"));
    if (!ref.ok()) return ref.status();
    f.kueue_config = *std::move(ref);
  }
  if (parsed->Has("--http-client")) {
    absl::StatusOr<kube::HttpClientKind> client =
        kube::ParseHttpClientKind(parsed->Get("--http-client"));
    if (!client.ok()) return absl::InvalidArgumentError(absl::StrCat("--http-client: ",
                                                                     client.status().message()));
    f.http_client = *client;
  }
  f.feature_gates = absl::StrJoin(parsed->GetAll(kFeatureGatesFlag.names[0]), ",");
  // Checked now against --kube-version (or the newest release), again once the server's version
  // is known.
  absl::StatusOr<FeatureGates> gates =
      FeatureGates::Parse(f.kube_version.value_or(KubeVersion::Newest()), f.feature_gates);
  if (!gates.ok()) return gates.status();
  return f;
}

std::string Identity() {
  const char* pod = std::getenv("POD_NAME");
  std::string base = pod != nullptr && *pod != '\0' ? pod : "";
  if (base.empty()) {
    char host[256] = {0};
    if (gethostname(host, sizeof(host) - 1) == 0) base = host;
  }
  absl::BitGen gen;
  return absl::StrCat(base, "_", absl::Hex(absl::Uniform<uint64_t>(gen), absl::kZeroPad16));
}

// The connection to the API server, and the registry its requests (and the rest) are counted in.
struct Cluster {
  kube::ClientConfig config;
  std::unique_ptr<kube::HttpTransport> transport;
  runtime::MetricsRegistry metrics;
  std::unique_ptr<kube::RestClient> client;
};

// Loads the cluster configuration and sets up the client; logs what failed and returns null.
std::unique_ptr<Cluster> Connect(const RunFlags& flags, const Logger& log) {
  auto cluster = std::make_unique<Cluster>();
  absl::StatusOr<kube::ClientConfig> config = kube::LoadClientConfig(flags.config, kube::HostEnv{});
  if (!config.ok()) {
    log.Error("cannot load the cluster configuration", {{"error", config.status().ToString()}});
    return nullptr;
  }
  cluster->config = *std::move(config);
  absl::StatusOr<std::unique_ptr<kube::HttpTransport>> transport =
      kube::NewHttpTransport(cluster->config, flags.http_client);
  if (!transport.ok()) {
    log.Error("cannot set up the connection to the API server",
              {{"server", cluster->config.server}, {"error", transport.status().ToString()}});
    return nullptr;
  }
  cluster->transport = *std::move(transport);
  kube::RestClientOptions client_options;
  client_options.qps = flags.qps;
  client_options.burst = flags.burst;
  client_options.credentials = cluster->config.credentials;
  client_options.metrics = &cluster->metrics;
  cluster->client = std::make_unique<kube::RestClient>(cluster->transport.get(), client_options);
  log.Info("connecting", {{"server", cluster->config.server},
                          {"source", cluster->config.source},
                          {"version", kVersion}});
  return cluster;
}

// Events as the operator records them: aggregated (EventRecorder), then written through the
// events.k8s.io API off the reconcile path (AsyncEventSink).
class EventPipeline {
 public:
  EventPipeline(kube::RestClient* client, const std::string& identity, const Logger* log)
      : writer_(client, kube::WriteOptions{"gpu-profile-operator", false, ""}),
        sink_(&writer_, SinkOptions(log)),
        recorder_(RecorderOptions(identity, &sink_)) {}
  runtime::EventRecorder* recorder() { return &recorder_; }
  // Writes the events still queued, for at most 2 s, and stops.
  void Flush() { sink_.Stop(absl::Seconds(2)).IgnoreError(); }

 private:
  static runtime::AsyncEventSinkOptions SinkOptions(const Logger* log) {
    runtime::AsyncEventSinkOptions options;
    options.on_error = [log](const absl::Status& status, const runtime::Event& event) {
      log->Debug("event not written", {{"reason", event.reason}, {"error", status.ToString()}});
    };
    return options;
  }
  static runtime::EventRecorderOptions RecorderOptions(const std::string& identity,
                                                       runtime::EventSink* sink) {
    runtime::EventRecorderOptions options;
    options.reporting_controller = "gpuprofile.io/gpu-profile-operator";
    options.reporting_instance = identity;
    options.clock = runtime::RealClock::Default();
    options.sink = sink;
    return options;
  }

  kube::RestEventSink writer_;
  runtime::AsyncEventSink sink_;
  runtime::EventRecorder recorder_;
};

// The writers' check under leader election (ClusterWriter's may_write): the manager's, once it
// exists. It is built after the operator, but before any worker runs.
class LeaderCheck {
 public:
  void Set(const runtime::Manager* manager) { manager_.store(manager); }
  bool IsLeader() const {
    const runtime::Manager* manager = manager_.load();
    return manager != nullptr && manager->IsLeader();
  }

 private:
  std::atomic<const runtime::Manager*> manager_{nullptr};
};

reconciler::OperatorOptions OperatorOptionsFor(const RunFlags& flags, Cluster* cluster,
                                               runtime::EventRecorder* events, const Logger* log,
                                               const LeaderCheck* leader) {
  reconciler::OperatorOptions options;
  options.client = cluster->client.get();
  options.clock = runtime::RealClock::Default();
  options.metrics = &cluster->metrics;
  options.events = events;
  options.workers = flags.workers;
  options.status_interval = flags.status_interval;
  options.dra_poll_interval = flags.dra_poll;
  options.kube_version = flags.kube_version;
  options.feature_gates = flags.feature_gates;
  options.kueue_config = flags.kueue_config;
  options.log = [log](const std::string& line) { log->Info(line); };
  if (flags.leader_elect) options.may_write = [leader] { return leader->IsLeader(); };
  return options;
}

// The exit code for a failed GpuProfileOperator::Create, after saying why.
int OperatorCreateFailed(const absl::Status& status, const Logger& log, std::ostream& err) {
  // --feature-gates is checked against the server's release, known only now.
  if (absl::StartsWith(status.message(), "--feature-gates")) {
    err << "run: " << status.message() << "\n" << kRunUsage << kFeatureGatesHelp;
    return kExitUsage;
  }
  log.Error("cannot start the operator", {{"error", status.ToString()}});
  return kExitFailure;
}

// An endpoint server (metrics, probes) as the manager runs it; "0" disables it.
class ServerRunnable final : public runtime::Runnable {
 public:
  ServerRunnable(std::string what, std::string address, kube::EndpointHandlers handlers,
                 const Logger* log, std::optional<kube::EndpointTls> tls = std::nullopt)
      : what_(std::move(what)),
        address_(std::move(address)),
        server_(kube::NewCpprestEndpointServer(std::move(handlers), std::move(tls))),
        log_(log) {}
  absl::Status Start() override {
    absl::StatusOr<int> port = server_->Start(address_);
    if (!port.ok()) {
      return absl::Status(port.status().code(), absl::StrCat("serving ", what_, " on ", address_,
                                                             ": ", port.status().message()));
    }
    if (*port != 0) {
      log_->Info(absl::StrCat("serving ", what_),
                 {{"address", address_}, {"port", std::to_string(*port)}});
    }
    return absl::OkStatus();
  }
  void Stop() override { server_->Stop(); }

 private:
  const std::string what_;
  const std::string address_;
  std::unique_ptr<kube::EndpointServer> server_;
  const Logger* const log_;
};

// /metrics (plain, or HTTPS with authentication and authorization: secure_metrics.h), /healthz
// and /readyz (kubebuilder's flags; "0" disables either server; probes stay plain HTTP).
struct Endpoints {
  Endpoints(const RunFlags& flags, reconciler::GpuProfileOperator* op, MetricsServing metrics,
            const Logger* log)
      : metrics_auth(std::move(metrics.auth)),
        metrics_server("metrics", flags.metrics_address, std::move(metrics.handlers), log,
                       std::move(metrics.tls)),
        probe_server("health probes", flags.probe_address, kube::ProbeHandlers(&healthz, &readyz),
                     log) {
    readyz.Add("informers-synced", [op] { return op->CachesReady(); }).IgnoreError();
    readyz.Add("dra-served", [op] { return op->DraServed(); }).IgnoreError();
  }

  runtime::HealthChecks healthz{"healthz"};
  runtime::HealthChecks readyz{"readyz"};
  std::unique_ptr<kube::MetricsAuthorizer> metrics_auth;  // used by metrics_server's handlers
  ServerRunnable metrics_server;
  ServerRunnable probe_server;
};

// The Lease this replica campaigns for (--leader-elect*; none without): the namespace defaults to
// the pod's, else the kubeconfig context's.
std::optional<runtime::ManagerLeaderElection> LeaderElectionFor(const RunFlags& flags,
                                                                Cluster* cluster,
                                                                const std::string& identity,
                                                                runtime::LeaseClient* leases) {
  if (!flags.leader_elect) return std::nullopt;
  runtime::ManagerLeaderElection election;
  election.client = leases;
  election.clock = runtime::RealClock::Default();
  runtime::LeaderElectionConfig& config = election.config;
  config.lease_namespace = flags.lease_namespace;
  if (config.lease_namespace.empty()) {
    const char* pod_ns = std::getenv("POD_NAMESPACE");
    config.lease_namespace =
        pod_ns != nullptr && *pod_ns != '\0' ? pod_ns : cluster->config.namespace_name;
  }
  config.lease_name = flags.lease_name;
  config.identity = identity;
  config.lease_duration = flags.lease_duration;
  config.renew_deadline = flags.renew_deadline;
  config.retry_period = flags.retry_period;
  absl::StatusOr<runtime::ControllerRuntimeMetrics> crm =
      runtime::ControllerRuntimeMetrics::Register(&cluster->metrics);
  if (crm.ok()) {
    config.master_status = crm->leader_election_master_status->WithLabels({config.lease_name});
  }
  return election;
}

// How the process ends: a signal, or lost leadership (exit 1: the process restarts and
// campaigns again, as controller-runtime's does).
struct Lifecycle {
  runtime::ShutdownSignal* signal;
  const Logger* log;
  std::atomic<bool> lost_leadership{false};
  // Set once shutdown starts: releasing the Lease then ends leadership on purpose.
  std::atomic<bool> shutting_down{false};

  void OnLostLeadership() {
    if (shutting_down.load() || lost_leadership.exchange(true)) return;
    log->Warn("leadership lost: stopping (the process restarts and campaigns again)");
    signal->Notify();
  }
};

// Servers and caches on every replica; the workers once this replica leads and the caches have
// synced.
absl::StatusOr<std::unique_ptr<runtime::Manager>> AssembleManager(
    reconciler::GpuProfileOperator* op, Endpoints* endpoints,
    std::optional<runtime::ManagerLeaderElection> election, Lifecycle* lifecycle) {
  runtime::ManagerOptions options;
  options.wait_for_sync = [op](absl::Time deadline) { return op->WaitForCacheSync(deadline); };
  const Logger* log = lifecycle->log;
  options.log = [log](const std::string& message, const runtime::LogFields& fields) {
    log->Info(message, fields);
  };
  options.leader_election = std::move(election);
  options.on_lost_leadership = [lifecycle] { lifecycle->OnLostLeadership(); };
  absl::StatusOr<std::unique_ptr<runtime::Manager>> manager =
      runtime::Manager::Create(std::move(options));
  if (!manager.ok()) return manager.status();
  (*manager)->AddServer("the metrics server", &endpoints->metrics_server);
  (*manager)->AddServer("the health probe server", &endpoints->probe_server);
  (*manager)->AddCache("the informer caches", op->caches_runnable());
  (*manager)->AddCache("the DRA discovery", op->discovery_runnable());
  (*manager)->AddLeaderOnly("the controllers", op->workers_runnable());
  return manager;
}

// Waits for a signal (or lost leadership), then stops gracefully: the manager (running
// reconciles finish, then the caches and servers stop, then the Lease is released), then the
// queued events. A second signal ends the process at once (ShutdownSignal); so does the end of
// the grace period. Returns the exit code.
int AwaitShutdown(Lifecycle* lifecycle, runtime::Manager* manager, EventPipeline* events,
                  absl::Duration grace_period) {
  runtime::ShutdownSignal* signal = lifecycle->signal;
  const Logger& log = *lifecycle->log;
  signal->Wait();
  lifecycle->shutting_down.store(true);
  const bool lost = lifecycle->lost_leadership.load();
  const int signal_number = signal->signal_number();
  log.Info(lost ? "shutting down after losing leadership" : "shutting down",
           {{"signal", signal_number > 0 ? strsignal(signal_number) : "none"},
            {"gracePeriod", absl::FormatDuration(grace_period)}});
  runtime::GracePeriod grace(grace_period);
  absl::Status stopped = grace.Run([&] {
    manager->Stop();
    events->Flush();
  });
  if (!stopped.ok()) {
    log.Error("graceful shutdown did not finish in time: exiting now",
              {{"error", stopped.ToString()}});
    std::_Exit(kExitFailure);
  }
  log.Info("stopped");
  return lost ? kExitFailure : kExitOk;
}

}  // namespace

int RunOperator(const std::vector<std::string>& args, std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      err << kRunUsage;
      return kExitOk;
    }
  }
  absl::StatusOr<RunFlags> parsed = ParseRunFlags(args);
  if (!parsed.ok()) {
    err << "run: " << parsed.status().message() << "\n" << kRunUsage;
    return kExitUsage;
  }
  const RunFlags& flags = *parsed;
  MallocTrimmer::SetMmapThreshold(static_cast<size_t>(flags.malloc_mmap_threshold));
  Logger log(flags.log_format, flags.log_level);
  absl::StatusOr<runtime::ShutdownSignal*> shutdown = runtime::ShutdownSignal::Install();
  if (!shutdown.ok()) {
    log.Error("cannot install the SIGTERM handler", {{"error", shutdown.status().ToString()}});
    return kExitFailure;
  }
  std::unique_ptr<Cluster> cluster = Connect(flags, log);
  if (cluster == nullptr) return kExitFailure;

  const std::string identity = Identity();
  EventPipeline events(cluster->client.get(), identity, &log);
  LeaderCheck leader;
  absl::StatusOr<std::unique_ptr<reconciler::GpuProfileOperator>> op =
      reconciler::GpuProfileOperator::Create(
          OperatorOptionsFor(flags, cluster.get(), events.recorder(), &log, &leader));
  if (!op.ok()) return OperatorCreateFailed(op.status(), log, err);
  MallocTrimmer trimmer(flags.malloc_trim_interval);
  // The gates the selectors are compiled with: the release defaults plus these overrides.
  log.Info("generating for Kubernetes",
           {{"kubeVersion", (*op)->kube_version().ToString()},
            {"featureGates", (*op)->feature_gates().OverridesString()}});

  absl::StatusOr<MetricsServing> metrics = BuildMetricsServing(
      flags.secure_metrics, &cluster->metrics, cluster->client.get(), &log);
  if (!metrics.ok()) {
    log.Error("cannot set up the metrics server", {{"error", metrics.status().ToString()}});
    return kExitFailure;
  }
  Endpoints endpoints(flags, op->get(), *std::move(metrics), &log);
  kube::RestLeaseClient lease_client(cluster->client.get());
  Lifecycle lifecycle{*shutdown, &log};
  absl::StatusOr<std::unique_ptr<runtime::Manager>> manager =
      AssembleManager(op->get(), &endpoints,
                      LeaderElectionFor(flags, cluster.get(), identity, &lease_client), &lifecycle);
  if (!manager.ok()) {
    log.Error("invalid leader election settings", {{"error", manager.status().ToString()}});
    return kExitUsage;
  }
  leader.Set(manager->get());
  if (absl::Status started = (*manager)->Start(); !started.ok()) {
    log.Error("cannot start", {{"error", started.ToString()}});
    (*manager)->Stop();
    return kExitFailure;
  }
  return AwaitShutdown(&lifecycle, manager->get(), &events, flags.grace);
}

}  // namespace gpuprofile::cmd
