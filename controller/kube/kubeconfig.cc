// File: controller/kube/kubeconfig.cc
#include "controller/kube/kubeconfig.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "controller/core/input_limits.h"
#include "controller/core/status_macros.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace gpuprofile::kube {
namespace {

std::string Dir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Resolve(const std::string& file, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  absl::string_view relative = path;
  while (absl::ConsumePrefix(&relative, "./")) {
  }
  return absl::StrCat(Dir(file), "/", relative);
}

// Finds where a YAML document first nests deeper than limits::kMaxNestingDepth.
class NestingCheck : public YAML::EventHandler {
 public:
  bool too_deep() const { return too_deep_; }
  const YAML::Mark& mark() const { return mark_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Enter(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Enter(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void Enter(const YAML::Mark& mark) {
    if (++depth_ > limits::kMaxNestingDepth && !too_deep_) {
      too_deep_ = true;
      mark_ = mark;
    }
  }

  int depth_ = 0;
  bool too_deep_ = false;
  YAML::Mark mark_;
};

// Reads one kubeconfig's YAML tree, collecting every problem as "<where>: <what>".
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  std::string String(const YAML::Node& parent, const char* key, const std::string& where) {
    const YAML::Node node = parent[key];
    if (!node.IsDefined() || node.IsNull()) return "";
    if (!node.IsScalar()) {
      Error(where, key, "must be a string");
      return "";
    }
    return node.Scalar();
  }

  bool Bool(const YAML::Node& parent, const char* key, const std::string& where) {
    const YAML::Node node = parent[key];
    if (!node.IsDefined() || node.IsNull()) return false;
    if (node.IsScalar()) {
      const std::string v = absl::AsciiStrToLower(node.Scalar());
      if (v == "true" || v == "yes" || v == "on") return true;
      if (v == "false" || v == "no" || v == "off") return false;
    }
    Error(where, key, "must be true or false");
    return false;
  }

  std::string Base64(const YAML::Node& parent, const char* key, const std::string& where) {
    std::string text = String(parent, key, where);
    if (text.empty()) return "";
    std::string decoded;
    text.erase(
        std::remove_if(text.begin(), text.end(),
                       [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }),
        text.end());
    if (!absl::Base64Unescape(text, &decoded)) {
      Error(where, key, "is not valid base64 (it must hold the base64 of the PEM file)");
      return "";
    }
    return decoded;
  }

  void Error(const std::string& where, absl::string_view field, absl::string_view what) {
    errors_.push_back(absl::StrCat(where, field.empty() ? "" : ".", field, " ", what));
  }

  const std::vector<std::string>& errors() const { return errors_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<std::string> errors_;
};

// Iterates a named list (clusters:, users:, contexts:) of {name, <inner>: {...}} entries.
template <typename F>
void ForEachNamed(Reader* r, const YAML::Node& root, const char* list, const char* inner, F f) {
  const YAML::Node entries = root[list];
  if (!entries.IsDefined() || entries.IsNull()) return;
  if (!entries.IsSequence()) {
    r->Error(list, "", "must be a list of {name, " + std::string(inner) + "} entries");
    return;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node entry = entries[i];
    std::string where = absl::StrCat(list, "[", i, "]");
    if (!entry.IsMap()) {
      r->Error(where, "", "must be a mapping");
      continue;
    }
    std::string name = r->String(entry, "name", where);
    if (name.empty()) {
      r->Error(where, "name", "is missing (every entry needs a name)");
      continue;
    }
    where = absl::StrCat(list, "[", i, "] (\"", name, "\")");
    const YAML::Node body = entry[inner];
    if (body.IsDefined() && !body.IsNull() && !body.IsMap()) {
      r->Error(where, inner, "must be a mapping");
      continue;
    }
    f(name, body.IsDefined() && !body.IsNull() ? body : YAML::Node(YAML::NodeType::Map),
      where + "." + inner);
  }
}

std::optional<ExecConfig> ReadExec(Reader* r, const YAML::Node& exec, const std::string& where) {
  ExecConfig c;
  c.api_version = r->String(exec, "apiVersion", where);
  c.command = r->String(exec, "command", where);
  c.install_hint = r->String(exec, "installHint", where);
  c.interactive_mode = r->String(exec, "interactiveMode", where);
  c.provide_cluster_info = r->Bool(exec, "provideClusterInfo", where);
  if (c.command.empty()) r->Error(where, "command", "is missing");
  if (c.api_version.empty()) {
    r->Error(where, "apiVersion", "is missing (use client.authentication.k8s.io/v1)");
  }
  if (c.command.find('/') != std::string::npos) c.command = Resolve(r->file(), c.command);
  if (const YAML::Node args = exec["args"]; args.IsDefined() && !args.IsNull()) {
    if (!args.IsSequence()) {
      r->Error(where, "args", "must be a list of strings");
    } else {
      for (const YAML::Node& a : args) {
        if (a.IsScalar()) {
          c.args.push_back(a.Scalar());
        } else {
          r->Error(where, "args", "must be a list of strings");
        }
      }
    }
  }
  if (const YAML::Node env = exec["env"]; env.IsDefined() && !env.IsNull()) {
    if (!env.IsSequence()) {
      r->Error(where, "env", "must be a list of {name, value}");
    } else {
      for (size_t i = 0; i < env.size(); ++i) {
        std::string at = absl::StrCat(where, ".env[", i, "]");
        if (!env[i].IsMap()) {
          r->Error(at, "", "must be a mapping with name and value");
          continue;
        }
        std::string name = r->String(env[i], "name", at);
        if (name.empty()) r->Error(at, "name", "is missing");
        c.env.emplace_back(name, r->String(env[i], "value", at));
      }
    }
  }
  return c;
}

// One users[] entry's user: the file's relative paths resolved against the file. Basic auth and
// auth providers are only noted here; ClientConfigFromKubeconfig refuses them if used.
KubeconfigUser ReadUser(Reader* r, const std::string& name, const YAML::Node& n,
                        const std::string& where) {
  const std::string& path = r->file();
  KubeconfigUser u;
  u.name = name;
  u.file = path;
  u.token = r->String(n, "token", where);
  u.token_file = Resolve(path, r->String(n, "tokenFile", where));
  u.client_certificate = Resolve(path, r->String(n, "client-certificate", where));
  u.client_certificate_data = r->Base64(n, "client-certificate-data", where);
  u.client_key = Resolve(path, r->String(n, "client-key", where));
  u.client_key_data = r->Base64(n, "client-key-data", where);
  u.basic_auth =
      !r->String(n, "username", where).empty() || !r->String(n, "password", where).empty();
  if (const YAML::Node ap = n["auth-provider"]; ap.IsDefined() && !ap.IsNull()) {
    u.auth_provider =
        ap.IsMap() ? r->String(ap, "name", where + ".auth-provider") : std::string("(malformed)");
    if (u.auth_provider.empty()) u.auth_provider = "(unnamed)";
  }
  if (const YAML::Node exec = n["exec"]; exec.IsDefined() && !exec.IsNull()) {
    if (!exec.IsMap()) {
      r->Error(where, "exec", "must be a mapping");
    } else {
      u.exec = ReadExec(r, exec, where + ".exec");
    }
  }
  return u;
}

absl::StatusOr<Kubeconfig> ParseTree(const YAML::Node& root, const std::string& path) {
  Kubeconfig config;
  config.files.push_back(path);
  if (!root.IsDefined() || root.IsNull()) return config;  // an empty file is an empty config
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, ": the top level must be a mapping (kind: Config)"));
  }
  Reader r(path);
  config.current_context = r.String(root, "current-context", "");
  if (!config.current_context.empty()) config.current_context_file = path;
  ForEachNamed(&r, root, "clusters", "cluster",
               [&](const std::string& name, const YAML::Node& n, const std::string& where) {
                 KubeconfigCluster c;
                 c.name = name;
                 c.file = path;
                 c.server = r.String(n, "server", where);
                 c.certificate_authority =
                     Resolve(path, r.String(n, "certificate-authority", where));
                 c.certificate_authority_data = r.Base64(n, "certificate-authority-data", where);
                 c.insecure_skip_tls_verify = r.Bool(n, "insecure-skip-tls-verify", where);
                 c.tls_server_name = r.String(n, "tls-server-name", where);
                 c.proxy_url = r.String(n, "proxy-url", where);
                 config.clusters.emplace(name, std::move(c));
               });
  ForEachNamed(&r, root, "users", "user",
               [&](const std::string& name, const YAML::Node& n, const std::string& where) {
                 config.users.emplace(name, ReadUser(&r, name, n, where));
               });
  ForEachNamed(&r, root, "contexts", "context",
               [&](const std::string& name, const YAML::Node& n, const std::string& where) {
                 KubeconfigContext c;
                 c.name = name;
                 c.file = path;
                 c.cluster = r.String(n, "cluster", where);
                 c.user = r.String(n, "user", where);
                 c.namespace_name = r.String(n, "namespace", where);
                 config.contexts.emplace(name, std::move(c));
               });
  if (!r.errors().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, ":\n  ", absl::StrJoin(r.errors(), "\n  ")));
  }
  return config;
}

// "https://host:port/prefix" -> "host" (brackets stripped from IPv6 literals).
std::string UrlHost(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? end : end - start);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    return authority.substr(1, close == std::string::npos ? close : close - 1);
  }
  return authority.substr(0, authority.find(':'));
}

absl::StatusOr<std::string> ReadPem(const HostEnv& host, const std::string& path,
                                    const std::string& where, const char* field) {
  absl::StatusOr<std::string> text = host.fs->ReadFile(path);
  if (!text.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": ", field, " ", path,
                                                      " cannot be read: ", text.status().message(),
                                                      "; fix the path or use ", field, "-data"));
  }
  return *std::move(text);
}

// The context to use: --context, else current-context. Errors say where the name came from and
// which contexts are defined.
absl::StatusOr<const KubeconfigContext*> ChooseContext(const Kubeconfig& config,
                                                       const std::string& context_flag,
                                                       const std::string& files) {
  std::string context_name = context_flag;
  std::string chosen_by = "--context";
  if (context_name.empty()) {
    if (config.current_context.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("kubeconfig ", files,
                       " sets no current-context; pass --context NAME or run "
                       "`kubectl config use-context NAME`"));
    }
    context_name = config.current_context;
    chosen_by = absl::StrCat("current-context in ", config.current_context_file);
  }
  auto ctx_it = config.contexts.find(context_name);
  if (ctx_it == config.contexts.end()) {
    std::vector<std::string> known;
    for (const auto& [name, c] : config.contexts) known.push_back(name);
    return absl::NotFoundError(absl::StrCat(
        "context \"", context_name, "\" (from ", chosen_by, ") is not defined in kubeconfig ",
        files, "; defined contexts: ", known.empty() ? "none" : absl::StrJoin(known, ", ")));
  }
  return &ctx_it->second;
}

// The cluster context `ctx` names.
absl::StatusOr<const KubeconfigCluster*> ClusterOf(const Kubeconfig& config,
                                                   const KubeconfigContext& ctx,
                                                   const std::string& ctx_where,
                                                   const std::string& files) {
  auto cl_it = config.clusters.find(ctx.cluster);
  if (ctx.cluster.empty() || cl_it == config.clusters.end()) {
    return absl::NotFoundError(absl::StrCat(ctx_where, ": context.cluster \"", ctx.cluster,
                                            "\" is not defined in any kubeconfig file (", files,
                                            "); add it under clusters: or choose another context"));
  }
  return &cl_it->second;
}

// cluster.server must be an http(s) URL this client reaches directly, and verified against its
// own host: the cpprest transport can use neither a proxy nor another TLS server name.
absl::Status CheckServer(const KubeconfigCluster& cluster, const std::string& cl_where) {
  const std::string& server = cluster.server;
  if (server.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(cl_where, ": cluster.server is missing; set it to https://HOST:PORT"));
  }
  if (!absl::StartsWith(server, "https://") && !absl::StartsWith(server, "http://")) {
    return absl::InvalidArgumentError(absl::StrCat(cl_where, ": cluster.server \"", server,
                                                   "\" must start with https:// or http://"));
  }
  if (!cluster.proxy_url.empty()) {
    return absl::UnimplementedError(
        absl::StrCat(cl_where,
                     ": cluster.proxy-url is not supported by this client; reach the API server "
                     "directly (or through a tunnel whose address goes into cluster.server)"));
  }
  if (!cluster.tls_server_name.empty() && cluster.tls_server_name != UrlHost(server)) {
    return absl::UnimplementedError(absl::StrCat(
        cl_where, ": cluster.tls-server-name \"", cluster.tls_server_name,
        "\" differs from the server host \"", UrlHost(server),
        "\", and this client verifies the certificate against the server host only; put a "
        "host name the certificate covers into cluster.server (e.g. via /etc/hosts) and remove "
        "tls-server-name"));
  }
  return absl::OkStatus();
}

// How to trust the server: its CA (data, else file), or insecure-skip-tls-verify; not both.
absl::Status ReadServerTrust(const KubeconfigCluster& cluster, const std::string& cl_where,
                             const HostEnv& host, TlsConfig* tls) {
  tls->server_name = cluster.tls_server_name;
  tls->insecure_skip_verify = cluster.insecure_skip_tls_verify;
  if (!cluster.certificate_authority_data.empty()) {
    tls->ca_pem = cluster.certificate_authority_data;
  } else if (!cluster.certificate_authority.empty()) {
    ASSIGN_OR_RETURN(tls->ca_pem, ReadPem(host, cluster.certificate_authority, cl_where,
                                          "cluster.certificate-authority"));
  }
  if (tls->insecure_skip_verify && !tls->ca_pem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(cl_where,
                     ": cluster.insecure-skip-tls-verify and a certificate authority are both set; "
                     "remove one of them (as kubectl requires)"));
  }
  return absl::OkStatus();
}

// Refuses the ways of authenticating that Kubernetes removed, naming what to use instead.
absl::Status CheckUserSupported(const KubeconfigUser& user, const std::string& u_where) {
  if (user.basic_auth) {
    return absl::UnimplementedError(
        absl::StrCat(u_where,
                     ": user.username/password (basic authentication) was removed from Kubernetes "
                     "in 1.19; use a token, a client certificate or an exec plugin"));
  }
  if (!user.auth_provider.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        u_where, ": user.auth-provider \"", user.auth_provider,
        "\" is not supported (the in-tree providers were removed in Kubernetes 1.26); use the "
        "provider's exec plugin (e.g. gke-gcloud-auth-plugin, kubelogin)"));
  }
  return absl::OkStatus();
}

// The static client certificate and its key (each from data, else a file): both or neither.
absl::Status ReadClientCertificate(const KubeconfigUser& user, const std::string& u_where,
                                   const HostEnv& host, TlsConfig* tls) {
  if (!user.client_certificate_data.empty()) {
    tls->client_certificate_pem = user.client_certificate_data;
  } else if (!user.client_certificate.empty()) {
    ASSIGN_OR_RETURN(tls->client_certificate_pem,
                     ReadPem(host, user.client_certificate, u_where, "user.client-certificate"));
  }
  if (!user.client_key_data.empty()) {
    tls->client_key_pem = user.client_key_data;
  } else if (!user.client_key.empty()) {
    ASSIGN_OR_RETURN(tls->client_key_pem,
                     ReadPem(host, user.client_key, u_where, "user.client-key"));
  }
  if (tls->client_certificate_pem.empty() != tls->client_key_pem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        u_where, ": ",
        tls->client_key_pem.empty() ? "user.client-certificate is set without user.client-key"
                                    : "user.client-key is set without user.client-certificate",
        "; set both (or both -data forms)"));
  }
  return absl::OkStatus();
}

// The user's bearer-token provider: a token, a token file (re-read as it rotates) or an exec
// plugin, in that order of precedence; null when the user has none (a client certificate
// alone, or anonymous). The plugin gets the cluster's details, with the CA already read
// (`ca_pem`).
std::shared_ptr<CredentialProvider> CredentialsOf(const KubeconfigUser& user,
                                                  const KubeconfigCluster& cluster,
                                                  const std::string& ca_pem,
                                                  const std::string& u_where, const HostEnv& host) {
  if (!user.token.empty()) {
    Credentials c;
    c.bearer_token = user.token;
    return std::make_shared<StaticCredentialProvider>(c);
  }
  if (!user.token_file.empty()) {
    return std::make_shared<TokenFileCredentialProvider>(user.token_file, host.fs, host.clock);
  }
  if (user.exec) {
    ExecClusterInfo info;
    info.server = cluster.server;
    info.tls_server_name = cluster.tls_server_name;
    info.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
    info.certificate_authority_data_pem = ca_pem;
    return std::make_shared<ExecCredentialProvider>(*user.exec, info, u_where, host.runner,
                                                    host.clock);
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<Kubeconfig> ParseKubeconfig(absl::string_view text, const std::string& path) {
  const std::string what = absl::StrCat("kubeconfig ", path);
  RETURN_IF_ERROR(limits::CheckSize(text.size(), limits::kMaxKubeconfigBytes, what, "the file"));
  try {
    // Nesting is checked on parse events before the tree is built (input_limits.h). Aliases
    // need no budget here: yaml-cpp's tree shares an aliased node instead of copying it, and the
    // reader visits a fixed set of fields.
    {
      std::istringstream in{std::string(text)};
      YAML::Parser parser(in);
      NestingCheck check;
      try {
        parser.HandleNextDocument(check);
      } catch (const YAML::Exception&) {
        if (!check.too_deep()) throw;  // yaml-cpp's own depth guard comes later than ours
      }
      if (check.too_deep()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": line ", check.mark().line + 1, ", column ", check.mark().column + 1,
            ": mappings and sequences nest deeper than ", limits::kMaxNestingDepth, " levels"));
      }
    }
    YAML::Node root = YAML::Load(std::string(text));
    return ParseTree(root, path);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not valid YAML at line ",
                                                   e.mark.line + 1, ", column ", e.mark.column + 1,
                                                   ": ", e.msg));
  } catch (const std::exception& e) {  // std::bad_alloc
    return absl::ResourceExhaustedError(absl::StrCat(what, ": ", e.what()));
  }
}

void MergeKubeconfig(const Kubeconfig& next, Kubeconfig* merged) {
  for (const auto& [name, c] : next.clusters) merged->clusters.emplace(name, c);
  for (const auto& [name, u] : next.users) merged->users.emplace(name, u);
  for (const auto& [name, c] : next.contexts) merged->contexts.emplace(name, c);
  if (merged->current_context.empty() && !next.current_context.empty()) {
    merged->current_context = next.current_context;
    merged->current_context_file = next.current_context_file;
  }
  merged->files.insert(merged->files.end(), next.files.begin(), next.files.end());
}

absl::StatusOr<Kubeconfig> LoadKubeconfig(const ConfigFlags& flags, const HostEnv& host) {
  std::vector<std::string> paths;
  bool must_exist = false;
  std::string origin;
  if (!flags.kubeconfig.empty()) {
    paths.push_back(flags.kubeconfig);
    must_exist = true;
    origin = "--kubeconfig";
  } else if (std::optional<std::string> env = host.env->Get("KUBECONFIG"); env && !env->empty()) {
    for (absl::string_view p : absl::StrSplit(*env, ':', absl::SkipEmpty())) {
      std::string path(p);
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    }
    origin = "KUBECONFIG";
  } else {
    std::optional<std::string> home = host.env->Get("HOME");
    if (!home || home->empty()) {
      return absl::FailedPreconditionError(
          "no kubeconfig: --kubeconfig and KUBECONFIG are not set and HOME is unknown; pass "
          "--kubeconfig FILE");
    }
    paths.push_back(absl::StrCat(*home, "/.kube/config"));
    must_exist = true;
    origin = "the default location";
  }
  Kubeconfig merged;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = host.fs->ReadFile(path);
    if (!text.ok()) {
      if (absl::IsNotFound(text.status()) && !must_exist) continue;  // kubectl skips these
      return absl::FailedPreconditionError(absl::StrCat(
          "kubeconfig ", path, " (from ", origin, ") cannot be read: ", text.status().message()));
    }
    ASSIGN_OR_RETURN(Kubeconfig one, ParseKubeconfig(*text, path));
    MergeKubeconfig(one, &merged);
  }
  if (merged.files.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("none of the kubeconfig files in KUBECONFIG exists (",
                     absl::StrJoin(paths, ":"), "); fix KUBECONFIG or pass --kubeconfig FILE"));
  }
  return merged;
}

absl::StatusOr<ClientConfig> ClientConfigFromKubeconfig(const Kubeconfig& config,
                                                        const std::string& context_flag,
                                                        const HostEnv& host) {
  const std::string files = absl::StrJoin(config.files, ":");
  ASSIGN_OR_RETURN(const KubeconfigContext* ctx, ChooseContext(config, context_flag, files));
  const std::string ctx_where =
      absl::StrCat("context \"", ctx->name, "\" in kubeconfig ", ctx->file);
  ASSIGN_OR_RETURN(const KubeconfigCluster* cluster, ClusterOf(config, *ctx, ctx_where, files));
  const std::string cl_where = absl::StrCat("cluster \"", cluster->name, "\" in kubeconfig ",
                                            cluster->file, " (", ctx_where, ")");
  ClientConfig out;
  out.source = ctx_where;
  out.namespace_name = ctx->namespace_name.empty() ? "default" : ctx->namespace_name;
  out.server = cluster->server;
  RETURN_IF_ERROR(CheckServer(*cluster, cl_where));
  RETURN_IF_ERROR(ReadServerTrust(*cluster, cl_where, host, &out.tls));

  if (ctx->user.empty()) return out;  // anonymous
  auto u_it = config.users.find(ctx->user);
  if (u_it == config.users.end()) {
    return absl::NotFoundError(absl::StrCat(ctx_where, ": context.user \"", ctx->user,
                                            "\" is not defined in any kubeconfig file (", files,
                                            "); add it under users: or choose another context"));
  }
  const KubeconfigUser& user = u_it->second;
  const std::string u_where =
      absl::StrCat("user \"", user.name, "\" in kubeconfig ", user.file, " (", ctx_where, ")");
  RETURN_IF_ERROR(CheckUserSupported(user, u_where));
  RETURN_IF_ERROR(ReadClientCertificate(user, u_where, host, &out.tls));
  out.credentials = CredentialsOf(user, *cluster, out.tls.ca_pem, u_where, host);
  return out;
}

absl::StatusOr<ClientConfig> InClusterClientConfig(const HostEnv& host) {
  std::optional<std::string> h = host.env->Get("KUBERNETES_SERVICE_HOST");
  std::optional<std::string> p = host.env->Get("KUBERNETES_SERVICE_PORT");
  if (!h || h->empty() || !p || p->empty()) {
    return absl::FailedPreconditionError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both "
        "be set (they are in every pod); outside a cluster pass --kubeconfig or set KUBECONFIG");
  }
  ClientConfig out;
  out.source = "in-cluster (service account)";
  const std::string hostname = h->find(':') != std::string::npos ? absl::StrCat("[", *h, "]") : *h;
  out.server = absl::StrCat("https://", hostname, ":", *p);
  const std::string dir = kServiceAccountDir;
  const std::string token_path = dir + "/token";
  absl::StatusOr<std::string> token = host.fs->ReadFile(token_path);
  if (!token.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("in-cluster: the service-account token ", token_path,
                     " cannot be read: ", token.status().message(),
                     "; mount it (automountServiceAccountToken: true) or pass --kubeconfig"));
  }
  const std::string ca_path = dir + "/ca.crt";
  absl::StatusOr<std::string> ca = host.fs->ReadFile(ca_path);
  if (!ca.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "in-cluster: the cluster CA ", ca_path, " cannot be read: ", ca.status().message(),
        "; it is mounted with the service-account token"));
  }
  out.tls.ca_pem = *std::move(ca);
  if (absl::StatusOr<std::string> ns = host.fs->ReadFile(dir + "/namespace"); ns.ok()) {
    std::string n = *ns;
    absl::StripAsciiWhitespace(&n);
    if (!n.empty()) out.namespace_name = n;
  }
  out.credentials = std::make_shared<TokenFileCredentialProvider>(token_path, host.fs, host.clock);
  return out;
}

absl::StatusOr<ClientConfig> LoadClientConfig(const ConfigFlags& flags, const HostEnv& host) {
  std::optional<std::string> kubeconfig_env = host.env->Get("KUBECONFIG");
  std::optional<std::string> service_host = host.env->Get("KUBERNETES_SERVICE_HOST");
  if (flags.kubeconfig.empty() && (!kubeconfig_env || kubeconfig_env->empty()) && service_host &&
      !service_host->empty()) {
    if (!flags.context.empty()) {
      return absl::InvalidArgumentError(
          "--context needs a kubeconfig: running in-cluster, there is none; pass --kubeconfig "
          "too, or drop --context");
    }
    return InClusterClientConfig(host);
  }
  ASSIGN_OR_RETURN(Kubeconfig config, LoadKubeconfig(flags, host));
  return ClientConfigFromKubeconfig(config, flags.context, host);
}

}  // namespace gpuprofile::kube
