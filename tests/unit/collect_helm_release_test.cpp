// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>

using namespace gpuslice;

namespace {

nlohmann::json fixture(const std::string& name) {
  std::ifstream in(std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/objects/" + name);
  return nlohmann::json::parse(in);
}

} // namespace

TEST_CASE("collect::helm_release_from_secret") {
  SUBCASE("gzip release (Helm 3 default)") {
    model::Parsed<model::HelmRelease> r = collect::helm_release_from_secret(fixture("helm-release-secret.json"));
    REQUIRE_MESSAGE(r, r.error);
    const model::HelmRelease& release = *r.value;
    CHECK(release.secret_name == "sh.helm.release.v1.nvdp.v2");
    CHECK(release.name == "nvdp");
    CHECK(release.ns == "nvidia-device-plugin");
    CHECK(release.revision == 2);
    CHECK(release.status == "deployed");
    CHECK(release.chart_name == "nvidia-device-plugin");
    CHECK(release.chart_version == "0.17.1");
    CHECK(release.app_version == "0.17.1");
    CHECK(release.last_deployed == "2026-11-30T10:00:00Z");
    REQUIRE(release.manifest.size() == 2);
    CHECK(release.manifest[0] == model::ManifestObject{"ServiceAccount", "nvidia-device-plugin",
                                                       "nvdp-nvidia-device-plugin-service-account"});
    CHECK(release.manifest[1].kind == "DaemonSet");
    CHECK(release.manifest[1].name == "nvdp-nvidia-device-plugin");
    // Nothing of values, config, notes or templates survives into the summary.
    std::string summary = model::to_json(release).dump();
    CHECK(summary.find("secret-") == std::string::npos);
  }
  SUBCASE("uncompressed release (old Helm)") {
    model::Parsed<model::HelmRelease> r =
        collect::helm_release_from_secret(fixture("helm-release-secret-uncompressed.json"));
    REQUIRE_MESSAGE(r, r.error);
    CHECK(r.value->revision == 1);
    CHECK(r.value->status == "superseded");
    CHECK(r.value->manifest.size() == 2);
  }
  SUBCASE("our reduced Secret reads back the same summary") {
    model::HelmRelease original = *collect::helm_release_from_secret(fixture("helm-release-secret.json")).value;
    nlohmann::json reduced = collect::helm_release_secret_json(original);
    CHECK(!reduced.contains("data"));
    CHECK(reduced["type"] == "helm.sh/release.v1");
    CHECK(reduced["metadata"]["labels"]["owner"] == "helm");
    model::Parsed<model::HelmRelease> again = collect::helm_release_from_secret(reduced);
    REQUIRE_MESSAGE(again, again.error);
    CHECK(*again.value == original);
  }
  SUBCASE("broken data is an error naming the Secret, never a crash") {
    nlohmann::json secret = fixture("helm-release-secret.json");
    auto error_for = [&](nlohmann::json release) {
      nlohmann::json copy = secret;
      copy["data"]["release"] = std::move(release);
      model::Parsed<model::HelmRelease> r = collect::helm_release_from_secret(copy);
      CHECK(!r);
      CHECK(r.error.find("secret nvidia-device-plugin/sh.helm.release.v1.nvdp.v2") != std::string::npos);
      return r.error;
    };
    CHECK(error_for("!!!not base64").find("not base64 of base64") != std::string::npos);
    CHECK(error_for(42).find("not a string") != std::string::npos);
    // base64(base64("hello")): decodes, but is neither gzip nor JSON.
    CHECK(error_for("YUdWc2JHOD0=").find("not a JSON object") != std::string::npos);
    // base64(base64(gzip header + junk)): a truncated gzip stream.
    CHECK(error_for("SDRzSUFBQUFBQUFBLw==").find("not valid gzip") != std::string::npos);
    std::string cut = secret["data"]["release"].get<std::string>();
    CHECK(!error_for(cut.substr(0, cut.size() / 2)).empty());
    nlohmann::json no_data = secret;
    no_data.erase("data");
    CHECK(collect::helm_release_from_secret(no_data).error.find("no data.release") != std::string::npos);
  }
}
