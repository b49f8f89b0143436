// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/kube/api_error.hpp>

using gpuslice::kube::api_error_from_response;
using gpuslice::kube::ApiError;

TEST_CASE("kube::api_error_from_response") {
  SUBCASE("a NotFound Status") {
    const ApiError e = api_error_from_response(
        404,
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"foo\" not found","reason":"NotFound","details":{"name":"foo","kind":"pods"},"code":404})",
        "get", "/api/v1/namespaces/default/pods/foo");
    CHECK(e.http_code == 404);
    CHECK(e.is_not_found());
    CHECK(e.reason == "NotFound");
    CHECK(e.details.name == "foo");
    CHECK(e.details.kind == "pods");
    CHECK(std::string(e.what()) ==
          "Error from server (NotFound): pods \"foo\" not found (get /api/v1/namespaces/default/pods/foo)");
  }
  SUBCASE("Forbidden names the missing permission") {
    const ApiError e = api_error_from_response(
        403,
        R"({"kind":"Status","status":"Failure","message":"nodes is forbidden: User \"dev\" cannot list resource \"nodes\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"nodes"},"code":403})",
        "list", "/api/v1/nodes");
    CHECK(e.is_forbidden());
    CHECK(std::string(e.what()).find("cannot list resource \"nodes\"") != std::string::npos);
  }
  SUBCASE("Invalid carries causes; Conflict and AlreadyExists are told apart") {
    const ApiError invalid = api_error_from_response(
        422,
        R"({"kind":"Status","reason":"Invalid","message":"x is invalid","details":{"causes":[{"reason":"FieldValueInvalid","message":"bad","field":"spec.replicas"}]},"code":422})",
        "create", "/apis/apps/v1/namespaces/a/deployments");
    REQUIRE(invalid.details.causes.size() == 1);
    CHECK(invalid.details.causes[0].field == "spec.replicas");
    CHECK(api_error_from_response(409, R"({"kind":"Status","reason":"Conflict","code":409})", "update", "/p").is_conflict());
    CHECK(api_error_from_response(409, R"({"kind":"Status","reason":"AlreadyExists","code":409})", "create", "/p")
              .is_already_exists());
  }
  SUBCASE("410 Expired keeps the fresh continue token") {
    const ApiError e = api_error_from_response(
        410, R"({"kind":"Status","reason":"Expired","message":"too old","metadata":{"continue":"abc"},"code":410})", "list",
        "/api/v1/pods");
    CHECK(e.is_expired());
    CHECK(e.continue_token == "abc");
  }
  SUBCASE("429 Status with retryAfterSeconds") {
    const ApiError e = api_error_from_response(
        429, R"({"kind":"Status","reason":"TooManyRequests","message":"slow down","details":{"retryAfterSeconds":3},"code":429})",
        "list", "/api/v1/pods");
    CHECK(e.details.retry_after_seconds == std::optional<int>(3));
  }
  SUBCASE("plain-text bodies get client-go's message for the code plus the text") {
    const ApiError e = api_error_from_response(429, "Too many requests, please try again later.\n", "list", "/api/v1/pods");
    CHECK(e.reason == "TooManyRequests");
    CHECK(e.message ==
          "the server has received too many requests and has asked us to try again later: Too many requests, please try again later.");
    const ApiError unauthorized = api_error_from_response(401, "", "get", "/version");
    CHECK(unauthorized.message == "the server has asked for the client to provide credentials");
    CHECK(std::string(unauthorized.what()).rfind("You must be logged in to the server", 0) == 0);
    const ApiError html = api_error_from_response(502, "<html>\n<body>bad gateway</body>", "get", "/x");
    CHECK(html.reason == "InternalError");
    CHECK(html.message.find("<html>") != std::string::npos);
    CHECK(html.message.find("bad gateway") == std::string::npos); // only the first line
  }
  SUBCASE("JSON that is not a Status is treated as text") {
    const ApiError e = api_error_from_response(404, R"({"kind":"Pod"})", "get", "/x");
    CHECK(e.reason == "NotFound");
  }
  SUBCASE("is a RuntimeError (exit 3)") {
    const ApiError e = api_error_from_response(500, "", "get", "/x");
    const gpuslice::RuntimeError* base = &e;
    CHECK(base != nullptr);
  }
}
