// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <string>

#include <doctest/doctest.h>

#include <gpuslice/timeslicing.hpp>

using gpuslice::diagnose::check_time_slicing_config;
using gpuslice::diagnose::ConfigCheck;
using gpuslice::diagnose::ConfigProblem;

namespace {

// The problem at path, or nullptr.
const ConfigProblem* problem_at(const ConfigCheck& check, const std::string& path) {
  const auto it = std::find_if(check.problems.begin(), check.problems.end(),
                               [&](const ConfigProblem& p) { return p.path == path; });
  return it == check.problems.end() ? nullptr : &*it;
}

} // namespace

TEST_CASE("diagnose::check_time_slicing_config") {
  SUBCASE("the documented minimal config is clean") {
    const ConfigCheck c = check_time_slicing_config(R"(version: v1
flags:
  migStrategy: none
sharing:
  timeSlicing:
    renameByDefault: false
    failRequestsGreaterThanOne: false
    resources:
      - name: nvidia.com/gpu
        replicas: 4
)");
    CHECK(c.problems.empty());
    CHECK(c.usable());
    CHECK(c.config.strategy == "time-slicing");
    CHECK(c.replicas_for("nvidia.com/gpu") == 4);
    CHECK_FALSE(c.replicas_for("nvidia.com/gpu.shared"));
  }

  SUBCASE("JSON is accepted, and a bare name gets the nvidia.com prefix") {
    const ConfigCheck c = check_time_slicing_config(
        R"({"version":"v1","sharing":{"timeSlicing":{"renameByDefault":true,"resources":[{"name":"gpu","replicas":2}]}}})");
    CHECK(c.usable());
    CHECK(c.config.rename_by_default);
    CHECK(c.replicas_for("nvidia.com/gpu") == 2);
  }

  SUBCASE("replicas < 2 is fatal at the replicas path") {
    const ConfigCheck c = check_time_slicing_config(
        "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 1\n");
    CHECK_FALSE(c.usable());
    const ConfigProblem* p = problem_at(c, "sharing.timeSlicing.resources[0].replicas");
    REQUIRE(p);
    CHECK(p->fatal);
    CHECK(p->message.find(">= 2") != std::string::npos);
    CHECK_FALSE(c.replicas_for("nvidia.com/gpu"));
  }

  SUBCASE("replicas as a string is fatal") {
    const ConfigCheck c = check_time_slicing_config(
        "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: \"4\"\n");
    const ConfigProblem* p = problem_at(c, "sharing.timeSlicing.resources[0].replicas");
    REQUIRE(p);
    CHECK(p->fatal);
    CHECK(p->message.find("string") != std::string::npos);
  }

  SUBCASE("replicas missing, name missing, not a number") {
    const ConfigCheck c = check_time_slicing_config(
        "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n    - replicas: 4\n"
        "    - name: nvidia.com/gpu\n      replicas: four\n");
    CHECK(problem_at(c, "sharing.timeSlicing.resources[0].replicas"));
    CHECK(problem_at(c, "sharing.timeSlicing.resources[1].name"));
    CHECK(problem_at(c, "sharing.timeSlicing.resources[2].replicas"));
    CHECK_FALSE(c.usable());
  }

  SUBCASE("renameByDefault under flags is misplaced, not fatal") {
    const ConfigCheck c = check_time_slicing_config(R"(version: v1
flags:
  renameByDefault: true
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 4
)");
    const ConfigProblem* p = problem_at(c, "flags.renameByDefault");
    REQUIRE(p);
    CHECK_FALSE(p->fatal);
    CHECK(p->message.find("sharing.timeSlicing") != std::string::npos);
    CHECK(c.usable());
    CHECK_FALSE(c.config.rename_by_default);
  }

  SUBCASE("replicas directly under timeSlicing is misplaced and resources are missing") {
    const ConfigCheck c = check_time_slicing_config(
        "sharing:\n  timeSlicing:\n    replicas: 4\n");
    const ConfigProblem* misplaced = problem_at(c, "sharing.timeSlicing.replicas");
    REQUIRE(misplaced);
    CHECK(misplaced->message.find("resources[]") != std::string::npos);
    const ConfigProblem* missing = problem_at(c, "sharing.timeSlicing.resources");
    REQUIRE(missing);
    CHECK(missing->fatal);
  }

  SUBCASE("timeSlicing at the top level and a case typo") {
    const ConfigCheck c = check_time_slicing_config(
        "version: v1\ntimeSlicing:\n  resources: []\nsharing:\n  timeslicing: {}\n");
    REQUIRE(problem_at(c, "timeSlicing"));
    CHECK(problem_at(c, "timeSlicing")->message.find("'sharing'") != std::string::npos);
    REQUIRE(problem_at(c, "sharing.timeslicing"));
    CHECK(problem_at(c, "sharing.timeslicing")->message.find("did you mean 'timeSlicing'") !=
          std::string::npos);
    CHECK(c.config.strategy == "none");
  }

  SUBCASE("rename and devices are ignored; bad devices are fatal") {
    const ConfigCheck c = check_time_slicing_config(R"(sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      rename: gpu-shared
      devices: 2
      replicas: 2
    - name: nvidia.com/mig-1g.5gb
      devices: some
      replicas: 2
)");
    CHECK_FALSE(problem_at(c, "sharing.timeSlicing.resources[0].rename")->fatal);
    CHECK_FALSE(problem_at(c, "sharing.timeSlicing.resources[0].devices")->fatal);
    CHECK(problem_at(c, "sharing.timeSlicing.resources[1].devices")->fatal);
  }

  SUBCASE("MPS wins over time-slicing") {
    const ConfigCheck c = check_time_slicing_config(R"(sharing:
  timeSlicing:
    resources: [{name: nvidia.com/gpu, replicas: 4}]
  mps:
    resources: [{name: nvidia.com/gpu, replicas: 2}]
)");
    CHECK(c.config.strategy == "mps");
    CHECK(c.config.fail_requests_greater_than_one);
    CHECK(c.replicas_for("nvidia.com/gpu") == 2);
    CHECK(problem_at(c, "sharing.mps"));
  }

  SUBCASE("bad YAML, wrong shapes, wrong version, wrong booleans") {
    const ConfigCheck bad = check_time_slicing_config("sharing: [unclosed");
    REQUIRE(problem_at(bad, ""));
    CHECK(problem_at(bad, "")->fatal);
    CHECK(problem_at(bad, "")->message.find("YAML") != std::string::npos);
    CHECK_FALSE(check_time_slicing_config("- a\n- b\n").usable());
    CHECK(problem_at(check_time_slicing_config("version: v2\n"), "version")->fatal);
    CHECK(problem_at(check_time_slicing_config("flags:\n  migStrategy: all\n"), "flags.migStrategy")->fatal);
    const ConfigCheck quoted = check_time_slicing_config(
        "sharing:\n  timeSlicing:\n    renameByDefault: \"true\"\n    resources: [{name: nvidia.com/gpu, replicas: 2}]\n");
    CHECK(problem_at(quoted, "sharing.timeSlicing.renameByDefault")->fatal);
    CHECK_FALSE(check_time_slicing_config("sharing:\n  timeSlicing:\n    resources: {name: x}\n").usable());
  }

  SUBCASE("an empty config is valid and shares nothing") {
    const ConfigCheck c = check_time_slicing_config("");
    CHECK(c.usable());
    CHECK(c.config.strategy == "none");
  }
}

TEST_CASE("diagnose::check_time_slicing_config never crashes on cut input") {
  const std::string config = "version: v1\nflags:\n  migStrategy: none\n  plugin:\n    deviceListStrategy: envvar\n"
                             "sharing:\n  timeSlicing:\n    renameByDefault: false\n    failRequestsGreaterThanOne: true\n"
                             "    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n      devices: all\n";
  int usable = 0;
  for (std::size_t n = 0; n <= config.size(); ++n) {
    const ConfigCheck c = check_time_slicing_config(std::string_view(config).substr(0, n));
    usable += c.usable();
    for (const ConfigProblem& p : c.problems) CHECK_FALSE(p.message.empty());
  }
  CHECK(usable > 0);
  CHECK(check_time_slicing_config(config).replicas_for("nvidia.com/gpu") == 4);
}
