// File: e2e/emulator/main.cc
// kube-emulator: a Kubernetes API server emulator for end-to-end tests (see e2e/README.md).
// Prints the URL once it serves requests; runs until SIGINT/SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/emulator/api_server.h"
#include "e2e/emulator/frontend.h"
#include "e2e/emulator/http_adapter.h"
#include "e2e/emulator/tls_certs.h"

namespace gpuprofile::e2e {
namespace {

constexpr char kUsage[] =
    "usage: kube-emulator [--listen 127.0.0.1:0] [--kube-version 1.32|...|1.37]\n"
    "  [--runtime-config resource.k8s.io/v1beta1=true,...] [--feature-gates G=true,...]\n"
    "  [-f MANIFESTS]... [--state FILE] [--kubeconfig-out FILE] [--audit-log FILE]\n"
    "  [--faults SPEC] [--watch-history N] [--bookmark-interval DURATION]\n"
    "  [--watch-queue N] [--watch-unread-bytes N] [--watch-senders N]\n"
    "  [--tls [--client-cert-auth]] [--token-file FILE] [--authorization AlwaysAllow|RBAC]\n";

struct Flags {
  std::string listen = "127.0.0.1:0";
  std::string kube_version = "1.34";
  std::map<std::string, bool> runtime_config;
  std::string feature_gates;  // every --feature-gates, joined with commas
  std::vector<std::string> manifests;
  std::string state;
  std::string kubeconfig_out;
  bool client_cert_auth = false;  // with --tls: mutual TLS, the kubeconfig carries the client cert
  std::string audit_log;
  std::string faults;
  size_t watch_history = 10000;
  absl::Duration bookmark_interval = absl::Seconds(60);
  DeliveryOptions delivery;
  bool tls = false;
  std::string token_file;
  bool rbac = false;
};

absl::Status ParseBoolMap(const std::string& flag, const std::string& value,
                          std::map<std::string, bool>& out) {
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    std::vector<std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    bool enabled = true;
    if (kv.size() == 2) {
      if (kv[1] == "true") {
        enabled = true;
      } else if (kv[1] == "false") {
        enabled = false;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": invalid value \"", kv[1], "\" for ", kv[0], " (true or false)"));
      }
    }
    out[kv[0]] = enabled;
  }
  return absl::OkStatus();
}

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    auto next = [&]() -> absl::StatusOr<std::string> {
      if (has_inline) return value;
      if (i + 1 >= argc) return absl::InvalidArgumentError(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--help" || arg == "-h") return absl::CancelledError(kUsage);
    if (arg == "--tls" && !has_inline) {
      flags.tls = true;
      continue;
    }
    if (arg == "--client-cert-auth" && !has_inline) {
      flags.client_cert_auth = true;
      continue;
    }
    absl::StatusOr<std::string> v = next();
    if (!v.ok()) return v.status();
    if (arg == "--listen") {
      flags.listen = *v;
    } else if (arg == "--kube-version") {
      flags.kube_version = *v;
    } else if (arg == "--runtime-config") {
      if (absl::Status s = ParseBoolMap(arg, *v, flags.runtime_config); !s.ok()) return s;
    } else if (arg == "--feature-gates") {
      flags.feature_gates += (flags.feature_gates.empty() ? "" : ",") + *v;
    } else if (arg == "-f" || arg == "--filename") {
      flags.manifests.push_back(*v);
    } else if (arg == "--state") {
      flags.state = *v;
    } else if (arg == "--kubeconfig-out") {
      flags.kubeconfig_out = *v;
    } else if (arg == "--token-file") {
      flags.token_file = *v;
    } else if (arg == "--authorization") {
      if (*v != "RBAC" && *v != "AlwaysAllow") {
        return absl::InvalidArgumentError("--authorization: AlwaysAllow or RBAC");
      }
      flags.rbac = *v == "RBAC";
    } else if (arg == "--audit-log") {
      flags.audit_log = *v;
    } else if (arg == "--faults") {
      flags.faults = *v;
    } else if (arg == "--watch-history") {
      if (!absl::SimpleAtoi(*v, &flags.watch_history) || flags.watch_history == 0) {
        return absl::InvalidArgumentError("--watch-history: a positive number of events");
      }
    } else if (arg == "--watch-queue") {
      if (!absl::SimpleAtoi(*v, &flags.delivery.max_pending_events) ||
          flags.delivery.max_pending_events == 0) {
        return absl::InvalidArgumentError("--watch-queue: a positive number of events");
      }
    } else if (arg == "--watch-unread-bytes") {
      if (!absl::SimpleAtoi(*v, &flags.delivery.max_buffered_bytes) ||
          flags.delivery.max_buffered_bytes == 0) {
        return absl::InvalidArgumentError("--watch-unread-bytes: a positive number of bytes");
      }
    } else if (arg == "--watch-senders") {
      if (!absl::SimpleAtoi(*v, &flags.delivery.senders) || flags.delivery.senders == 0 ||
          flags.delivery.senders > 64) {
        return absl::InvalidArgumentError("--watch-senders: a number of threads from 1 to 64");
      }
    } else if (arg == "--bookmark-interval") {
      if (!absl::ParseDuration(*v, &flags.bookmark_interval) ||
          flags.bookmark_interval <= absl::ZeroDuration()) {
        return absl::InvalidArgumentError("--bookmark-interval: a duration such as 1s or 500ms");
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg, "\n", kUsage));
    }
  }
  if (flags.client_cert_auth && !flags.tls) {
    return absl::InvalidArgumentError("--client-cert-auth needs --tls");
  }
  return flags;
}

absl::Status WriteAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

// The admin's kubeconfig: a bearer token, or with --client-cert-auth the client certificate and
// key (no token).
std::string Kubeconfig(const std::string& url, const std::string& ca_pem, const std::string& token,
                       const TlsMaterial* client) {
  std::string ca;
  if (!ca_pem.empty()) {
    ca = absl::StrCat("\n    certificate-authority-data: ", absl::Base64Escape(ca_pem));
  }
  return absl::StrCat(
      "apiVersion: v1\nkind: Config\nclusters:\n- name: kube-emulator\n  cluster:\n    server: ",
      url, ca,
      "\ncontexts:\n- name: kube-emulator\n  context:\n    cluster: kube-emulator\n"
      "    user: admin\n    namespace: default\ncurrent-context: kube-emulator\n"
      "users:\n- name: admin\n  user:\n",
      client != nullptr
          ? absl::StrCat(
                "    client-certificate-data: ", absl::Base64Escape(client->client_cert_pem),
                "\n    client-key-data: ", absl::Base64Escape(client->client_key_pem), "\n")
          : absl::StrCat("    token: ", token, "\n"));
}

int Run(int argc, char** argv) {
  // Block the stop signals before any thread exists (the API server's watch senders start with
  // it), so every thread inherits the mask and only the main thread, waiting for them below,
  // takes SIGINT/SIGTERM; a thread with the default disposition would end the process with 143.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  absl::StatusOr<Flags> flags = ParseFlags(argc, argv);
  if (!flags.ok()) {
    bool help = flags.status().code() == absl::StatusCode::kCancelled;
    (help ? std::cout : std::cerr)
        << (help ? "" : "kube-emulator: ") << flags.status().message() << (help ? "" : "\n");
    return help ? 0 : 2;
  }
  absl::StatusOr<KubeVersion> kube = KubeVersion::Parse(flags->kube_version);
  if (!kube.ok()) {
    std::cerr << "kube-emulator: --kube-version: " << kube.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<FaultConfig> faults = ParseFaults(flags->faults);
  if (!faults.ok()) {
    std::cerr << "kube-emulator: " << faults.status().message() << "\n";
    return 2;
  }
  ServerOptions options;
  options.kube_version = *kube;
  options.runtime_config = flags->runtime_config;
  options.feature_gates = flags->feature_gates;
  options.history_size = flags->watch_history;
  options.bookmark_interval = flags->bookmark_interval;
  options.delivery = flags->delivery;
  absl::StatusOr<std::unique_ptr<ApiServer>> server = ApiServer::Create(options);
  if (!server.ok()) {
    std::cerr << "kube-emulator: " << server.status().message() << "\n";
    return 2;
  }
  if (!flags->state.empty()) {
    std::ifstream in(flags->state);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      nlohmann::json snapshot = nlohmann::json::parse(text.str(), nullptr, false);
      absl::Status restored = snapshot.is_discarded()
                                  ? absl::InvalidArgumentError("state file is not JSON")
                                  : (*server)->Restore(snapshot);
      if (!restored.ok()) {
        std::cerr << "kube-emulator: --state " << flags->state << ": " << restored.message()
                  << "\n";
        return 1;
      }
    }
  }
  if (!flags->manifests.empty()) {
    absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests(flags->manifests);
    if (!objects.ok()) {
      std::cerr << "kube-emulator: -f: " << objects.status().message() << "\n";
      return 1;
    }
    std::vector<nlohmann::json> seeds;
    for (const dra::ManifestObject& o : *objects) seeds.push_back(o.object);
    if (absl::Status seeded = (*server)->Seed(seeds); !seeded.ok()) {
      std::cerr << "kube-emulator: -f: " << seeded.message() << "\n";
      return 1;
    }
  }
  AuthConfig auth;
  auth.authenticate = flags->tls || !flags->token_file.empty();
  auth.rbac = flags->rbac;
  if (!flags->token_file.empty()) {
    std::ifstream in(flags->token_file);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::map<std::string, UserInfo>> tokens = ParseTokenFile(text.str());
    if (!in || !tokens.ok()) {
      std::cerr << "kube-emulator: --token-file " << flags->token_file << ": "
                << (in ? tokens.status().message() : "cannot read") << "\n";
      return 1;
    }
    auth.tokens = *std::move(tokens);
  }
  // The admin client of --kubeconfig-out: a fresh random token once tokens are checked.
  std::string admin_token = auth.authenticate ? RandomToken() : "kube-emulator-admin";
  if (admin_token.empty()) {
    std::cerr << "kube-emulator: no random bytes for the admin token\n";
    return 1;
  }
  auth.tokens[admin_token] =
      UserInfo{"kube-emulator-admin", "", {"system:masters", "system:authenticated"}};
  std::optional<TlsConfig> tls;
  std::string ca_pem;
  std::optional<TlsMaterial> client_material;  // --client-cert-auth
  if (flags->tls) {
    absl::StatusOr<TlsMaterial> material = GenerateTlsMaterial({"127.0.0.1"}, {"localhost"});
    if (!material.ok()) {
      std::cerr << "kube-emulator: --tls: " << material.status().message() << "\n";
      return 1;
    }
    tls = TlsConfig{material->server_cert_pem, material->server_key_pem, ""};
    ca_pem = material->ca_cert_pem;
    if (flags->client_cert_auth) {
      tls->client_ca_pem = ca_pem;
      auth.client_certificate_user =
          UserInfo{"kube-emulator-admin", "", {"system:masters", "system:authenticated"}};
      client_material = *material;
    }
  }
  Frontend frontend(server->get(), *faults, flags->audit_log, flags->state);
  frontend.SetAuth(std::move(auth));
  if (absl::Status s = frontend.Open(); !s.ok()) {
    std::cerr << "kube-emulator: " << s.message() << "\n";
    return 1;
  }
  if (absl::Status s = frontend.SaveState(); !s.ok()) {
    std::cerr << "kube-emulator: --state: " << s.message() << "\n";
    return 1;
  }

  std::string host = flags->listen;
  int port = 0;
  if (size_t colon = flags->listen.rfind(':'); colon != std::string::npos) {
    host = flags->listen.substr(0, colon);
    if (!absl::SimpleAtoi(flags->listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
      std::cerr << "kube-emulator: --listen: expected HOST:PORT\n";
      return 2;
    }
  }
  ::signal(SIGPIPE, SIG_IGN);

  absl::StatusOr<std::unique_ptr<HttpServer>> http = StartHttpServer(
      host, port, [&frontend](const HttpRequest& r) { return frontend.Handle(r); },
      tls ? &*tls : nullptr);
  if (!http.ok()) {
    std::cerr << "kube-emulator: " << http.status().message() << "\n";
    return 1;
  }
  std::atomic<bool> running{true};
  std::thread ticker([&] {
    while (running.load()) {
      (*server)->Tick();
      frontend.Tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  if (!flags->kubeconfig_out.empty()) {
    if (absl::Status s = WriteAtomically(flags->kubeconfig_out,
                                         Kubeconfig((*http)->url(), ca_pem, admin_token,
                                                    client_material ? &*client_material : nullptr));
        !s.ok()) {
      std::cerr << "kube-emulator: --kubeconfig-out: " << s.message() << "\n";
    }
  }
  std::cout << (*http)->url() << std::endl;
  int sig = 0;
  sigwait(&stop, &sig);
  running = false;
  ticker.join();
  // Watches first, and for good: they end cleanly (the client sees the stream end), and a client
  // that re-watches now gets a stream that ends at once. (Closing cpprestsdk's listener waited
  // for every open response, so a watch opened in that window kept the process alive until it
  // was killed.)
  (*server)->ShutdownWatches();
  // Then exit without closing the listener or running cpprestsdk's destructors: with clients
  // still connected they crash (SIGSEGV in the listener's connection handlers, seen here on
  // about one HTTPS stop in two and on some HTTP ones; upstream microsoft/cpprestsdk#1480).
  // Nothing is lost: every acknowledged write is already in --state and the audit log is
  // flushed per request; the process's exit closes every connection.
  absl::Status saved = frontend.SaveState();
  std::cout.flush();
  std::fflush(nullptr);
  std::_Exit(saved.ok() ? 0 : 1);
}

}  // namespace
}  // namespace gpuprofile::e2e

int main(int argc, char** argv) { return gpuprofile::e2e::Run(argc, argv); }
