// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>

#include "cli/diagnose_options.hpp"

using namespace gpuslice;
using cli::DiagnoseOptions;
using cli::validate_diagnose_options;

TEST_CASE("cli::validate_diagnose_options") {
  DiagnoseOptions o;
  SUBCASE("defaults: table, fail on error, nothing ignored") {
    const auto v = validate_diagnose_options(o);
    CHECK(v.format == report::Format::table);
    CHECK(v.fail_on == diagnose::Severity::error);
    CHECK(v.ignored.empty());
  }
  SUBCASE("--fail-on never has no threshold") {
    o.fail_on = "never";
    CHECK_FALSE(validate_diagnose_options(o).fail_on.has_value());
  }
  SUBCASE("--ignore takes codes in any case") {
    o.ignore = {"GS303", "gs501"};
    const auto v = validate_diagnose_options(o);
    CHECK(v.ignored == std::set<diagnose::FindingCode>{diagnose::FindingCode::GS303,
                                                       diagnose::FindingCode::GS501});
  }
  SUBCASE("bad values name the flag and the value") {
    struct Case {
      void (*set)(DiagnoseOptions&);
      std::string message;
    };
    const Case cases[] = {
        {[](DiagnoseOptions& d) { d.output = "xml"; },
         "--output \"xml\": must be one of table, json, yaml, markdown, junit"},
        {[](DiagnoseOptions& d) { d.fail_on = "sometimes"; },
         "--fail-on \"sometimes\": must be one of error, warning, info, never"},
        {[](DiagnoseOptions& d) { d.ignore = {"GS999"}; },
         "--ignore \"GS999\": not a finding code (see `explain`; e.g. GS303)"},
        {[](DiagnoseOptions& d) { d.replicas = 1; },
         "--replicas 1: must be from 2 to 128 (1 means no sharing)"},
        {[](DiagnoseOptions& d) { d.replicas = -1; },
         "--replicas -1: must be from 2 to 128 (1 means no sharing)"},
        {[](DiagnoseOptions& d) { d.replicas = 100000; },
         "--replicas 100000: must be from 2 to 128 (1 means no sharing)"},
    };
    for (const Case& c : cases) {
      DiagnoseOptions bad;
      c.set(bad);
      CHECK_THROWS_WITH_AS(validate_diagnose_options(bad), c.message.c_str(), UsageError);
    }
  }
}

TEST_CASE("cli::validate_diagnose_options fleet flags") {
  DiagnoseOptions o;
  o.contexts = {"a", "b"};
  CHECK_NOTHROW(validate_diagnose_options(o));
  SUBCASE("not with --all-contexts") {
    o.all_contexts = true;
    CHECK_THROWS_WITH_AS(validate_diagnose_options(o),
                         "--contexts and --all-contexts: give one or the other", UsageError);
  }
  SUBCASE("not with --from-file") {
    o.from_files = {"x.json"};
    CHECK_THROWS_AS(validate_diagnose_options(o), UsageError);
  }
  SUBCASE("not with the global --context") {
    CHECK_THROWS_WITH_AS(validate_diagnose_options(o, "prod"),
                         "--context names one cluster: use --contexts for several", UsageError);
  }
}

TEST_CASE("cli::exit_code_for") {
  diagnose::Diagnosis d;
  d.findings.push_back(diagnose::make_finding(diagnose::FindingCode::GS501, "warning-level"));
  CHECK(cli::exit_code_for(d, diagnose::Severity::error) == ExitCode::ok);
  CHECK(cli::exit_code_for(d, diagnose::Severity::warning) == ExitCode::findings);
  CHECK(cli::exit_code_for(d, diagnose::Severity::info) == ExitCode::findings);
  CHECK(cli::exit_code_for(d, std::nullopt) == ExitCode::ok);
  CHECK(cli::exit_code_for(diagnose::Diagnosis{}, diagnose::Severity::info) == ExitCode::ok);
}

TEST_CASE("cli::drop_ignored") {
  diagnose::Diagnosis d;
  d.findings.push_back(diagnose::make_finding(diagnose::FindingCode::GS300, "a"));
  d.findings.push_back(diagnose::make_finding(diagnose::FindingCode::GS501, "b"));
  cli::drop_ignored(d, {diagnose::FindingCode::GS501});
  REQUIRE(d.findings.size() == 1);
  CHECK(d.findings[0].code == diagnose::FindingCode::GS300);
}
