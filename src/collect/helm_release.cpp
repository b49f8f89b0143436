// SPDX-License-Identifier: Apache-2.0
// Helm 3 release Secrets (shared/reference/kubeclient.md §6): data.release is base64 (the
// API's encoding of Secret data) of base64 (Helm's) of gzip of the release JSON. Only the
// summary leaves this file; values, config, notes and templates are dropped here.
#include <array>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/model/json_fields.hpp>

#include "yaml_json.hpp"

namespace gpuslice::collect {
namespace {

using namespace model::json_fields;

constexpr std::string_view k_helm_secret_type = "helm.sh/release.v1";
// A release JSON is at most a few MB; refusing more keeps a crafted gzip from exhausting memory.
constexpr std::size_t k_max_release_bytes = 64u << 20;

std::optional<std::string> base64_decode(std::string_view text) {
  static constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::array<int, 256> table{};
  table.fill(-1);
  for (std::size_t i = 0; i < k_alphabet.size(); ++i) table[static_cast<unsigned char>(k_alphabet[i])] = static_cast<int>(i);
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned buffer = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt; // data after padding
    int value = table[static_cast<unsigned char>(c)];
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  if (padding > 2) return std::nullopt;
  return out;
}

std::optional<std::string> gunzip(std::string_view data) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return std::nullopt;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  std::string out;
  std::array<char, 65536> chunk{};
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) break;
    out.append(chunk.data(), chunk.size() - stream.avail_out);
    if (out.size() > k_max_release_bytes) status = Z_MEM_ERROR;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) return std::nullopt;
  return out;
}

// A manifest's plain `name: 123` is text to Helm; the typed JSON made it a number.
std::string scalar_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number() || value.is_boolean()) return value.dump();
  return "";
}

// Kind, namespace and name of each document of the rendered manifest.
std::vector<model::ManifestObject> manifest_objects(const std::string& manifest) {
  std::vector<model::ManifestObject> objects;
  try {
    for (const nlohmann::json& document : parse_yaml_documents(manifest, "manifest")) {
      if (!document.is_object() || !document.contains("kind") || !document.contains("metadata")) continue;
      const nlohmann::json& metadata = document["metadata"];
      model::ManifestObject object;
      object.kind = scalar_text(document["kind"]);
      if (metadata.is_object()) {
        object.name = scalar_text(metadata.value("name", nlohmann::json()));
        object.ns = scalar_text(metadata.value("namespace", nlohmann::json()));
      }
      objects.push_back(std::move(object));
    }
  } catch (const UsageError&) {
    // A manifest Helm itself rendered should parse; if not, the summary stands without it.
  }
  return objects;
}

model::HelmRelease summarize(const nlohmann::json& release) {
  model::HelmRelease r;
  r.name = string_at(release, "name");
  r.ns = string_at(release, "namespace");
  r.revision = int_at(release, "version");
  const nlohmann::json& info = object_at(release, "info");
  r.status = string_at(info, "status");
  r.last_deployed = string_at(info, "last_deployed");
  const nlohmann::json& chart = object_at(object_at(release, "chart"), "metadata");
  r.chart_name = string_at(chart, "name");
  r.chart_version = string_at(chart, "version");
  r.app_version = string_at(chart, "appVersion");
  r.manifest = manifest_objects(string_at(release, "manifest"));
  return r;
}

} // namespace

model::Parsed<model::HelmRelease> helm_release_from_secret(const nlohmann::json& secret) {
  const nlohmann::json& metadata = object_at(secret, "metadata");
  std::string secret_name = string_at(metadata, "name");
  std::string where = fmt::format("secret {}/{}", string_at(metadata, "namespace"), secret_name);
  std::string summary_text = string_at(object_at(metadata, "annotations"), "gpuslice.dev/helm-release");
  const nlohmann::json* data = field(object_at(secret, "data"), "release");

  model::HelmRelease release;
  if (data) {
    if (!data->is_string()) return {std::nullopt, where + ": data.release is not a string"};
    std::optional<std::string> once = base64_decode(data->get_ref<const std::string&>());
    std::optional<std::string> twice = once ? base64_decode(*once) : std::nullopt;
    if (!twice) return {std::nullopt, where + ": data.release is not base64 of base64"};
    std::string raw = std::move(*twice);
    if (raw.size() >= 3 && raw.compare(0, 3, "\x1f\x8b\x08") == 0) {
      std::optional<std::string> inflated = gunzip(raw);
      if (!inflated) return {std::nullopt, where + ": data.release is not valid gzip"};
      raw = std::move(*inflated);
    }
    nlohmann::json parsed = nlohmann::json::parse(raw, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) return {std::nullopt, where + ": release is not a JSON object"};
    release = summarize(parsed);
  } else if (!summary_text.empty()) {
    nlohmann::json parsed = nlohmann::json::parse(summary_text, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      return {std::nullopt, where + ": annotation gpuslice.dev/helm-release is not a JSON object"};
    release = model::helm_release_from_json(parsed);
  } else {
    return {std::nullopt, where + ": no data.release"};
  }
  release.secret_name = secret_name;
  if (release.ns.empty()) release.ns = string_at(metadata, "namespace");
  if (release.name.empty()) release.name = string_at(object_at(metadata, "labels"), "name");
  return {std::move(release), {}};
}

nlohmann::json helm_release_secret_json(const model::HelmRelease& release) {
  std::string name = release.secret_name.empty()
                         ? fmt::format("sh.helm.release.v1.{}.v{}", release.name, release.revision)
                         : release.secret_name;
  nlohmann::json labels = {{"name", release.name}, {"owner", "helm"}, {"status", release.status},
                           {"version", std::to_string(release.revision)}};
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", k_helm_secret_type},
          {"metadata",
           {{"name", name},
            {"namespace", release.ns},
            {"labels", labels},
            {"annotations", {{"gpuslice.dev/helm-release", model::to_json(release).dump()}}}}}};
}

} // namespace gpuslice::collect
