// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>

#include "cli/verify_options.hpp"
#include "cli/verify_settings.hpp"

using namespace gpuslice;
using cli::validate_verify_flags;
using cli::VerifyFlags;

TEST_CASE("cli::validate_verify_flags --smoke") {
  VerifyFlags flags;
  flags.replicas = 4;
  SUBCASE("without --smoke there is no smoke run; --timeout defaults to 3m") {
    const cli::ValidVerifyFlags valid = validate_verify_flags(flags);
    CHECK_FALSE(valid.smoke.has_value());
    CHECK(valid.timeout == std::chrono::seconds(180));
  }
  SUBCASE("--smoke carries the replicas, taint, image and namespace") {
    flags.smoke = true;
    flags.taint = "nvidia.com/gpu=true:NoSchedule";
    flags.smoke_image = "registry.example/cuda:12";
    flags.smoke_namespace = "gpu-smoke";
    flags.timeout = "90s";
    const cli::ValidVerifyFlags valid = validate_verify_flags(flags);
    REQUIRE(valid.smoke.has_value());
    CHECK(valid.smoke->replicas == 4);
    CHECK(valid.smoke->taint->key == "nvidia.com/gpu");
    CHECK(valid.smoke->image == "registry.example/cuda:12");
    CHECK(valid.smoke->ns == "gpu-smoke");
    CHECK(valid.timeout == std::chrono::seconds(90));
  }
  SUBCASE("the default image is the pinned one, in namespace default") {
    flags.smoke = true;
    const cli::ValidVerifyFlags valid = validate_verify_flags(flags);
    CHECK(valid.smoke->image == remedy::k_smoke_default_image);
    CHECK(valid.smoke->ns == "default");
  }
  SUBCASE("bad values name the flag and the value") {
    struct Case {
      void (*set)(VerifyFlags&);
      std::string message;
    };
    const Case cases[] = {
        {[](VerifyFlags& f) { f.from_files = {"snap.json"}; },
         "--smoke: runs pods on the live cluster; it cannot be combined with --from-file"},
        {[](VerifyFlags& f) { f.smoke_image = "cuda 12"; },
         "--smoke-image \"cuda 12\": must be an image reference without spaces"},
        {[](VerifyFlags& f) { f.smoke_namespace = "GPU_smoke"; },
         "--smoke-namespace \"GPU_smoke\": must be a namespace name (lower-case letters, digits and '-', at most 63)"},
        {[](VerifyFlags& f) { f.timeout = "soon"; },
         "--timeout \"soon\": must be a positive duration such as 90s, 5m or 1h"},
    };
    for (const Case& c : cases) {
      VerifyFlags bad = flags;
      bad.smoke = true;
      c.set(bad);
      CHECK_THROWS_WITH_AS(validate_verify_flags(bad), c.message.c_str(), UsageError);
    }
  }
}

TEST_CASE("cli::validate_verify_flags --node, and the chosen settings reach the checks") {
  VerifyFlags flags;
  flags.nodes = {"gpu-1", "gpu-2", "gpu-1"};
  cli::ValidVerifyFlags valid = validate_verify_flags(flags);
  CHECK(valid.given.nodes == std::vector<std::string>{"gpu-1", "gpu-2"});
  remedy::VerifySettings settings;
  settings.replicas = 4;
  settings.resource = "nvidia.com/gpu.shared";
  settings.nodes = {"gpu-1"};
  cli::use_verify_settings(valid, settings);
  CHECK(valid.options.replicas == 4);
  CHECK(valid.options.resource == "nvidia.com/gpu.shared");
  CHECK(valid.options.nodes == std::vector<std::string>{"gpu-1"});
  flags.nodes = {"ns/gpu-1"};
  CHECK_THROWS_WITH_AS(validate_verify_flags(flags), "--node \"ns/gpu-1\": must be a node name", UsageError);
}

TEST_CASE("cli::validate_verify_flags --watch") {
  VerifyFlags flags;
  flags.watch = "10m";
  CHECK(validate_verify_flags(flags).watch == std::chrono::seconds(600));
  flags.watch = "soon";
  CHECK_THROWS_WITH_AS(validate_verify_flags(flags), "--watch \"soon\": must be a positive duration such as 90s, 10m or 1h",
                       UsageError);
  flags.watch = "1m";
  flags.from_files = {"s.json"};
  CHECK_THROWS_WITH_AS(validate_verify_flags(flags), "--watch: files do not change; it needs the live cluster", UsageError);
  flags.from_files.clear();
  flags.smoke = true;
  CHECK_THROWS_WITH_AS(validate_verify_flags(flags), "--watch: cannot be combined with --smoke", UsageError);
  CHECK_FALSE(validate_verify_flags(VerifyFlags{}).watch.has_value());
}

TEST_CASE("cli::settings_from_line names each source once") {
  remedy::VerifySettings settings;
  settings.replicas = 4;
  settings.replicas_from = "configmap nvidia/ts key any";
  settings.taint_from = "none";
  settings.resource = "nvidia.com/gpu.shared";
  settings.resource_from = "configmap nvidia/ts key any";
  CHECK(cli::settings_from_line(settings) ==
        "verify: replicas 4, resource nvidia.com/gpu.shared from configmap nvidia/ts key any; no taint from no flag or "
        "apply journal\n");
  settings.replicas_from = settings.taint_from = settings.resource_from = settings.nodes_from = "journal /j";
  settings.taint = model::Taint{"nvidia.com/gpu", "true", "NoSchedule", ""};
  settings.nodes = {"a", "b"};
  CHECK(cli::settings_from_line(settings) ==
        "verify: replicas 4, taint nvidia.com/gpu=true:NoSchedule, resource nvidia.com/gpu.shared, 2 node(s) from journal /j\n");
}
