// SPDX-License-Identifier: Apache-2.0
// Context selection, flag overrides and validation (client-go client_config.go, validation.go).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "kube/pem.hpp"

namespace gpuslice::kube {

namespace {

// kubectl's override quirks (client_config.go L582-600).
void apply_overrides(ClusterEntry& cluster, UserEntry& user, const GlobalOptions& o) {
  if (!o.server.empty()) {
    cluster.server = o.server;
    // A new server address makes the kubeconfig's SNI name meaningless.
    if (o.tls_server_name.empty()) {
      cluster.tls_server_name.clear();
    }
  }
  if (!o.tls_server_name.empty()) {
    cluster.tls_server_name = o.tls_server_name;
  }
  if (!o.certificate_authority.empty()) {
    cluster.certificate_authority = o.certificate_authority;
    cluster.certificate_authority_data.clear();
  }
  if (o.insecure_skip_tls_verify) {
    cluster.insecure_skip_tls_verify = true;
    if (o.certificate_authority.empty()) {
      cluster.certificate_authority.clear();
      cluster.certificate_authority_data.clear();
    }
  }
  if (!o.token.empty()) {
    user.token = o.token;
    user.token_file.clear();
  }
  if (!o.client_certificate.empty()) {
    user.client_certificate = o.client_certificate;
    user.client_certificate_data.clear();
  }
  if (!o.client_key.empty()) {
    user.client_key = o.client_key;
    user.client_key_data.clear();
  }
  if (!o.as_user.empty()) {
    user.as_user = o.as_user;
  }
  if (!o.as_groups.empty()) {
    user.as_groups = o.as_groups;
  }
}

std::string read_required(FileReader& files, const std::string& path, const std::string& what,
                          const std::string& owner, std::vector<std::string>& problems) {
  try {
    if (std::optional<std::string> text = files.read(path)) {
      return std::move(*text);
    }
    problems.push_back(fmt::format("unable to read {} {} for {} due to open {}: no such file or directory",
                                   what, path, owner, path));
  } catch (const std::exception& e) {
    problems.push_back(fmt::format("unable to read {} {} for {} due to {}", what, path, owner, e.what()));
  }
  return {};
}

// Where a certificate or key came from, for the message when it is not PEM: the flag that
// named the file, else the kubeconfig entry and its field (and the file, if it is one).
struct PemSource {
  std::string flag;   // "--certificate-authority" when the flag gave it, else ""
  std::string origin; // the kubeconfig file defining the entry
  std::string entry;  // e.g. cluster "prod"
  std::string field;  // the file field, e.g. certificate-authority ("-data" is added for the data field)
  std::string path;   // the file, when the file field is used
};

void check_pem(const std::string& text, bool is_key, const PemSource& source, std::vector<std::string>& problems) {
  if (is_key ? holds_pem_private_key(text) : holds_pem_certificate(text)) return;
  const char* what = is_key ? "a PEM private key" : "a PEM certificate";
  if (!source.flag.empty()) {
    problems.push_back(fmt::format("{} {} is not {}", source.flag, source.path, what));
    return;
  }
  const std::string where = source.origin.empty() ? "" : fmt::format("kubeconfig \"{}\": ", source.origin);
  const std::string file = source.path.empty() ? "" : " " + source.path;
  problems.push_back(fmt::format("{}{}: {}{} is not {}", where, source.entry, source.field, file, what));
}

// Reads the file field unless the data field is set, and checks the result is PEM.
std::string pem_material(FileReader& files, const std::string& data, const std::string& path, bool is_key,
                         PemSource source, const std::string& read_name, const std::string& owner,
                         std::vector<std::string>& problems) {
  if (!data.empty()) {
    source.field += "-data";
    check_pem(data, is_key, source, problems);
    return data;
  }
  if (path.empty()) return {};
  const std::size_t problems_before = problems.size();
  std::string text = read_required(files, path, read_name, owner, problems);
  source.path = path;
  if (problems.size() == problems_before) check_pem(text, is_key, source, problems);
  return text;
}

void validate_cluster(const ClusterEntry& c, const std::string& name, const GlobalOptions& flags, FileReader& files,
                      ClusterEndpoint& out, std::vector<std::string>& problems) {
  if (c.server.empty()) {
    problems.push_back(fmt::format("no server found for cluster \"{}\"", name));
  }
  if (!c.certificate_authority.empty() && !c.certificate_authority_data.empty()) {
    problems.push_back(fmt::format("certificate-authority-data and certificate-authority are both "
                                   "specified for {}. certificate-authority-data will override.",
                                   name));
  }
  if (c.insecure_skip_tls_verify &&
      (!c.certificate_authority.empty() || !c.certificate_authority_data.empty())) {
    problems.push_back("specifying a root certificates file with the insecure flag is not allowed");
  }
  if (c.certificate_authority_data.empty()) out.ca_file = c.certificate_authority;
  const PemSource source{flags.certificate_authority.empty() ? "" : "--certificate-authority", c.origin,
                         fmt::format("cluster \"{}\"", name), "certificate-authority", ""};
  out.ca_pem = pem_material(files, c.certificate_authority_data, c.certificate_authority, false, source,
                            "certificate-authority", name, problems);
}

void validate_exec(const ExecConfig& exec, const std::string& name, std::vector<std::string>& problems) {
  if (exec.command.empty()) {
    problems.push_back(fmt::format("command must be specified for {} to use exec authentication plugin", name));
  }
  if (exec.api_version.empty()) {
    problems.push_back(fmt::format("apiVersion must be specified for {} to use exec authentication plugin", name));
  }
  if (exec.interactive_mode.empty()) {
    problems.push_back(fmt::format("interactiveMode must be specified for {} to use exec authentication plugin", name));
  } else if (exec.interactive_mode != "Never" && exec.interactive_mode != "IfAvailable" &&
             exec.interactive_mode != "Always") {
    problems.push_back(fmt::format("invalid interactiveMode for {}: \"{}\"", name, exec.interactive_mode));
  }
}

void validate_user(const UserEntry& u, const std::string& name, const GlobalOptions& flags, FileReader& files,
                   Credentials& out, std::vector<std::string>& problems) {
  std::vector<std::string> methods;
  if (!u.token.empty() || !u.token_file.empty()) {
    methods.push_back("token");
  }
  if (!u.username.empty() || !u.password.empty()) {
    methods.push_back("basicAuth");
  }
  if (methods.size() > 1) {
    problems.push_back(fmt::format("more than one authentication method found for {}; found [{}], only one is allowed",
                                   name, fmt::join(methods, " ")));
  }
  if (!u.client_certificate.empty() || !u.client_certificate_data.empty()) {
    if (!u.client_certificate.empty() && !u.client_certificate_data.empty()) {
      problems.push_back(fmt::format("client-cert-data and client-cert are both specified for {}. client-cert-data will override.", name));
    }
    if (!u.client_key.empty() && !u.client_key_data.empty()) {
      problems.push_back(fmt::format("client-key-data and client-key are both specified for {}; client-key-data will override", name));
    }
    if (u.client_key.empty() && u.client_key_data.empty()) {
      problems.push_back(fmt::format("client-key-data or client-key must be specified for {} to use the clientCert authentication method.", name));
    }
  }
  if (u.exec) {
    if (u.auth_provider) {
      problems.push_back("authProvider cannot be provided in combination with an exec plugin");
    }
    validate_exec(*u.exec, name, problems);
  } else if (u.auth_provider) {
    problems.push_back(fmt::format("user {}: auth-provider plugins were removed from kubectl; use an exec plugin (e.g. kubelogin, gke-gcloud-auth-plugin)", name));
  }
  if (u.as_user.empty() && !u.as_groups.empty()) {
    problems.push_back(fmt::format("requesting groups or user-extra for {} without impersonating a user", name));
  }
  const std::string entry = fmt::format("user \"{}\"", name);
  out.client_certificate_pem =
      pem_material(files, u.client_certificate_data, u.client_certificate, false,
                   {flags.client_certificate.empty() ? "" : "--client-certificate", u.origin, entry,
                    "client-certificate", ""},
                   "client-cert", name, problems);
  out.client_key_pem = pem_material(files, u.client_key_data, u.client_key, true,
                                    {flags.client_key.empty() ? "" : "--client-key", u.origin, entry,
                                     "client-key", ""},
                                    "client-key", name, problems);
  out.token = u.token;
  out.token_file = u.token_file;
  out.username = u.username;
  out.password = u.password;
  out.exec = u.exec;
  out.as_user = u.as_user;
  out.as_groups = u.as_groups;
}

} // namespace

std::optional<ClusterEndpoint> resolve_endpoint(const Kubeconfig& config, const GlobalOptions& options,
                                                FileReader& files) {
  ClusterEndpoint out;
  out.context_name = options.context.empty() ? config.current_context : options.context;
  ContextEntry context;
  if (!out.context_name.empty()) {
    const auto found = config.contexts.find(out.context_name);
    if (found != config.contexts.end()) {
      context = found->second;
    } else if (!options.context.empty()) {
      throw UsageError(fmt::format("context \"{}\" does not exist", options.context));
    } else {
      throw UsageError(fmt::format("invalid configuration: context was not found for specified context: {}",
                                   out.context_name));
    }
  }
  out.cluster_name = options.cluster.empty() ? context.cluster : options.cluster;
  out.user_name = options.user.empty() ? context.user : options.user;

  ClusterEntry cluster;
  if (!out.cluster_name.empty()) {
    const auto found = config.clusters.find(out.cluster_name);
    if (found != config.clusters.end()) {
      cluster = found->second;
    } else if (!options.cluster.empty()) {
      throw UsageError(fmt::format("cluster \"{}\" does not exist", options.cluster));
    }
  }
  UserEntry user;
  if (!out.user_name.empty()) {
    const auto found = config.users.find(out.user_name);
    if (found != config.users.end()) {
      user = found->second;
    } else if (!options.user.empty()) {
      throw UsageError(fmt::format("auth info \"{}\" does not exist", options.user));
    }
  }
  apply_overrides(cluster, user, options);
  if (cluster.server.empty() && out.context_name.empty() && out.cluster_name.empty()) {
    return std::nullopt; // nothing configured: in-cluster or kubectl's localhost fallback
  }

  std::vector<std::string> problems;
  validate_cluster(cluster, out.cluster_name.empty() ? out.context_name : out.cluster_name, options, files,
                   out, problems);
  validate_user(user, out.user_name, options, files, out.credentials, problems);
  if (!problems.empty()) {
    throw UsageError(problems.size() == 1
                         ? "invalid configuration: " + problems.front()
                         : fmt::format("invalid configuration: [{}]", fmt::join(problems, ", ")));
  }
  out.server = cluster.server;
  out.tls_server_name = cluster.tls_server_name;
  out.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
  out.proxy_url = cluster.proxy_url;
  out.disable_compression = cluster.disable_compression;
  out.namespace_name = !options.namespace_name.empty() ? options.namespace_name
                       : !context.namespace_name.empty() ? context.namespace_name
                                                         : "default";
  out.request_timeout = parse_request_timeout(options.request_timeout);
  return out;
}

} // namespace gpuslice::kube
