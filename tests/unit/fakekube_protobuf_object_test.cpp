// SPDX-License-Identifier: Apache-2.0
// Protobuf request bodies, as kubectl >= 1.32's generators send them, decoded to JSON objects.
// Bodies are encoded here by hand from the generated.proto field numbers; the fidelity case
// create_generator_kinds checks the same table against real kubectl 1.33.
#include <doctest/doctest.h>

#include "fakekube_api_request.hpp"
#include "protobuf_object.hpp"
#include "protobuf_encode.hpp"
#include "protobuf_wire.hpp"

using fakekube_test::Call;
using fakekube_test::pb_bytes;
using fakekube_test::pb_int;
using nlohmann::json;

namespace {

std::string pb_map_entry(int number, const std::string& key, const std::string& value) {
  return pb_bytes(number, pb_bytes(1, key) + pb_bytes(2, value));
}

std::string envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  const std::string type_meta = pb_bytes(1, api_version) + pb_bytes(2, kind);
  return std::string("k8s\0", 4) + pb_bytes(1, type_meta) + pb_bytes(2, raw) + pb_bytes(3, "") +
         pb_bytes(4, "");
}

// ObjectMeta as Go marshals it: every non-pointer string, even empty, and a zero Time.
std::string object_meta(const std::string& name, const std::string& ns) {
  return pb_bytes(1, name) + pb_bytes(2, "") + pb_bytes(3, ns) + pb_bytes(4, "") + pb_bytes(5, "") +
         pb_bytes(6, "") + pb_int(7, 0) + pb_bytes(8, "") + pb_map_entry(11, "app", "infer");
}

std::string protobuf_config_map() {
  return envelope("v1", "ConfigMap",
                  pb_bytes(1, object_meta("time-slicing", "nvidia")) +
                      pb_map_entry(2, "any", "version: v1\n") +
                      pb_map_entry(3, "blob", std::string("\x00\xff", 2)) + pb_int(99, 7));
}

} // namespace

TEST_CASE("fakekube::protobuf::decode_object") {
  SUBCASE("a ConfigMap: metadata, data, binaryData; empty strings and unknown fields dropped") {
    const json object = fakekube::protobuf::decode_object(protobuf_config_map());
    CHECK(object == json{{"apiVersion", "v1"},
                         {"kind", "ConfigMap"},
                         {"metadata", {{"name", "time-slicing"}, {"namespace", "nvidia"},
                                       {"labels", {{"app", "infer"}}}}},
                         {"data", {{"any", "version: v1\n"}}},
                         {"binaryData", {{"blob", "AP8="}}}});
  }
  SUBCASE("a Deployment: varint replicas, repeated containers, quantities, creation time") {
    const std::string container =
        pb_bytes(1, "infer") + pb_bytes(2, "registry.example/infer:1") + pb_bytes(3, "/serve") +
        pb_bytes(8, pb_bytes(1, pb_bytes(1, "nvidia.com/gpu") + pb_bytes(2, pb_bytes(1, "1"))));
    const std::string pod_spec = pb_bytes(2, container) + pb_bytes(3, "Always");
    const std::string spec =
        pb_int(1, 3) + pb_bytes(2, pb_map_entry(1, "app", "infer")) +
        pb_bytes(3, pb_bytes(1, pb_map_entry(11, "app", "infer")) + pb_bytes(2, pod_spec));
    const std::string meta = pb_bytes(1, "infer") + pb_bytes(8, pb_int(1, 1700000000));
    const json object = fakekube::protobuf::decode_object(
        envelope("apps/v1", "Deployment", pb_bytes(1, meta) + pb_bytes(2, spec) + pb_bytes(3, "")));
    CHECK(object["metadata"] == json{{"name", "infer"}, {"creationTimestamp", "2023-11-14T22:13:20Z"}});
    CHECK(object["spec"]["replicas"] == 3);
    CHECK(object["spec"]["selector"] == json{{"matchLabels", {{"app", "infer"}}}});
    const json& pod = object["spec"]["template"]["spec"];
    CHECK(pod["restartPolicy"] == "Always");
    REQUIRE(pod["containers"].size() == 1);
    CHECK(pod["containers"][0] == json{{"name", "infer"},
                                       {"image", "registry.example/infer:1"},
                                       {"command", {"/serve"}},
                                       {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}});
    CHECK(object["status"] == json::object());
  }
  SUBCASE("a Service port's targetPort as a number and as a name") {
    const std::string by_number = pb_int(3, 80) + pb_bytes(4, pb_int(1, 0) + pb_int(2, 8080));
    const std::string by_name = pb_int(3, 443) + pb_bytes(4, pb_int(1, 1) + pb_bytes(3, "https"));
    const json object = fakekube::protobuf::decode_object(envelope(
        "v1", "Service",
        pb_bytes(1, pb_bytes(1, "web")) +
            pb_bytes(2, pb_bytes(1, by_number) + pb_bytes(1, by_name) + pb_bytes(4, "ClusterIP"))));
    CHECK(object["spec"]["ports"] == json::array({{{"port", 80}, {"targetPort", 8080}},
                                                  {{"port", 443}, {"targetPort", "https"}}}));
    CHECK(object["spec"]["type"] == "ClusterIP");
  }
  SUBCASE("a pointer field keeps its zero value: PriorityClass value 0") {
    const json object = fakekube::protobuf::decode_object(envelope(
        "scheduling.k8s.io/v1", "PriorityClass", pb_bytes(1, pb_bytes(1, "low")) + pb_int(2, 0)));
    CHECK(object["value"] == 0);
  }
  SUBCASE("a kind outside the table is UnknownKind, naming it") {
    CHECK_THROWS_WITH_AS(
        fakekube::protobuf::decode_object(envelope("apps/v1", "DaemonSet", pb_bytes(1, ""))),
        doctest::Contains("apps/v1 DaemonSet"), fakekube::protobuf::UnknownKind);
  }
  SUBCASE("malformed bodies are WireErrors naming the byte") {
    CHECK_THROWS_WITH_AS(fakekube::protobuf::decode_object("{\"kind\":\"ConfigMap\"}"),
                         doctest::Contains("envelope"), fakekube::protobuf::WireError);
    std::string truncated = protobuf_config_map();
    truncated.resize(truncated.size() - 20);
    CHECK_THROWS_WITH_AS(fakekube::protobuf::decode_object(truncated), doctest::Contains("at byte"),
                         fakekube::protobuf::WireError);
    // replicas sent length-delimited instead of as a varint
    const std::string wrong = envelope("apps/v1", "Deployment", pb_bytes(2, pb_bytes(1, "3")));
    CHECK_THROWS_WITH_AS(fakekube::protobuf::decode_object(wrong),
                         doctest::Contains("DeploymentSpec.replicas"), fakekube::protobuf::WireError);
  }
}

TEST_CASE("fakekube: protobuf create bodies through the API") {
  fakekube::Api api;
  api.load(json::array({{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "nvidia"}}}}}));
  SUBCASE("a ConfigMap is stored and read back as JSON") {
    auto created = Call(api, "POST", "/api/v1/namespaces/nvidia/configmaps")
                       .accept("application/vnd.kubernetes.protobuf,application/json")
                       .text(protobuf_config_map(), "application/vnd.kubernetes.protobuf")
                       .send();
    CHECK(created.status == 201);
    CHECK(created.content_type == "application/json");
    auto read = Call(api, "GET", "/api/v1/namespaces/nvidia/configmaps/time-slicing").send();
    CHECK(read.status == 200);
    CHECK(read.body["data"]["any"] == "version: v1\n");
    CHECK(read.body["binaryData"]["blob"] == "AP8=");
  }
  SUBCASE("an unknown kind is 415 naming it; a truncated body is 400 naming the byte") {
    auto unknown = Call(api, "POST", "/apis/apps/v1/namespaces/nvidia/daemonsets")
                       .text(envelope("apps/v1", "DaemonSet", pb_bytes(1, pb_bytes(1, "x"))),
                             "application/vnd.kubernetes.protobuf")
                       .send();
    CHECK(unknown.status == 415);
    CHECK(unknown.body["message"].get<std::string>().find("apps/v1 DaemonSet") != std::string::npos);
    std::string truncated = protobuf_config_map();
    truncated.resize(30);
    auto bad = Call(api, "POST", "/api/v1/namespaces/nvidia/configmaps")
                   .text(truncated, "application/vnd.kubernetes.protobuf")
                   .send();
    CHECK(bad.status == 400);
    CHECK(bad.body["message"].get<std::string>().find("at byte") != std::string::npos);
    CHECK(Call(api, "GET", "/api/v1/namespaces/nvidia/configmaps/time-slicing").send().status == 404);
  }
}
