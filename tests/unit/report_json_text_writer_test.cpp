// SPDX-License-Identifier: Apache-2.0
// The streaming JSON writer against nlohmann's dump(2) of the same tree, which it replaces
// for -o json and must match byte for byte.
#include <doctest/doctest.h>

#include <algorithm>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

#include "report/json_text_writer.hpp"

using namespace gpuslice;

namespace {

// Feeds `value` to a sink through the writer's calls (what the report producers do).
template <class Sink>
void replay_value(Sink& out, const nlohmann::ordered_json& value) {
  if (value.is_object()) {
    out.begin_object();
    for (const auto& [name, member] : value.items()) {
      out.key(name);
      replay_value(out, member);
    }
    out.end_object();
  } else if (value.is_array()) {
    out.begin_array();
    for (const nlohmann::ordered_json& item : value) replay_value(out, item);
    out.end_array();
  } else if (value.is_string()) {
    out.string(value.get<std::string>());
  } else if (value.is_boolean()) {
    out.boolean(value.get<bool>());
  } else {
    out.integer(value.get<long long>());
  }
}

std::string writer_text(const nlohmann::ordered_json& value) {
  report::JsonTextWriter out;
  replay_value(out, value);
  return out.take();
}

} // namespace

TEST_CASE("report::JsonTextWriter prints what nlohmann's dump(2) prints") {
  SUBCASE("nesting, empty containers, numbers and booleans") {
    const nlohmann::ordered_json value = {
        {"z", 1},
        {"a", {{"empty object", nlohmann::ordered_json::object()}, {"empty array", nlohmann::ordered_json::array()}}},
        {"list", {1, -2, 9223372036854775807LL, true, false, "x"}},
        {"nested", {{{"k", {nlohmann::ordered_json::array()}}}}}};
    CHECK(writer_text(value) == value.dump(2));
  }
  SUBCASE("a bare scalar and an empty top level") {
    CHECK(writer_text("plain") == nlohmann::ordered_json("plain").dump(2));
    CHECK(writer_text(nlohmann::ordered_json::object()) == "{}");
    CHECK(writer_text(nlohmann::ordered_json::array()) == "[]");
  }
  SUBCASE("escapes: quotes, backslash, the short forms, other control characters, DEL, UTF-8") {
    std::string controls;
    for (int c = 1; c < 0x20; ++c) controls += static_cast<char>(c);
    const nlohmann::ordered_json value = {{"quote \" and \\ slash /", "tab\tnew\nline\r\b\f"},
                                          {"controls", controls + '\x7f'},
                                          {"utf8", "Tesla-T4 — 16 GiB, café, 日本, \xF0\x9F\x9A\x80"}};
    CHECK(writer_text(value) == value.dump(2));
  }
  SUBCASE("text that is not UTF-8 is left to the tree's path") {
    for (const char* bad : {"\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "ok\xFF"}) {
      CAPTURE(bad);
      report::JsonTextWriter out;
      CHECK_THROWS_AS(out.string(bad), report::InvalidUtf8);
      CHECK_THROWS_AS((void)nlohmann::ordered_json(bad).dump(2), nlohmann::json::type_error);
    }
  }
}

TEST_CASE("report::JsonTreeBuilder builds the tree the writer's calls describe") {
  const nlohmann::ordered_json value = {{"b", {{"x", "1"}, {"y", {1, 2, {{"z", false}}}}}}, {"a", nlohmann::ordered_json::array()}};
  report::JsonTreeBuilder tree;
  replay_value(tree, value);
  const nlohmann::ordered_json built = tree.take();
  CHECK(built == value);
  CHECK(built.dump() == value.dump()); // same key order
}

TEST_CASE("report::render_diagnosis -o json: the streamed text is the tree's dump") {
  diagnose::Diagnosis d;
  diagnose::NodeInventory n;
  n.name = "gpu-1";
  n.taints = {"nvidia.com/gpu=true:NoSchedule", "a=\"quoted\":NoExecute"};
  d.nodes.push_back(n);
  diagnose::PendingPod p;
  p.ns = "ml";
  p.name = "pod\twith\ttabs";
  p.scheduler.source = "event";
  p.scheduler.message = "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.";
  p.scheduler.parsed = diagnose::parse_scheduler_message(p.scheduler.message);
  d.pending_pods.push_back(p);
  diagnose::Finding f = diagnose::make_finding(diagnose::FindingCode::GS300, "GPUs are not shared");
  f.objects.push_back({"Pod", "ml", "pod"});
  f.evidence = {"line one\nline two"};
  d.findings.push_back(f);
  d.findings.push_back(diagnose::make_finding(diagnose::FindingCode::GS701, "MIG"));
  d.notes = {"a note"};
  const report::ClusterInfo cluster{"ctx", "https://example:6443"};
  const std::string text = report::render_diagnosis(d, cluster, report::Format::json, report::Style{});
  CHECK(text == report::diagnosis_to_json(d, cluster).dump(2) + "\n");
  CHECK(nlohmann::json::parse(text)["summary"]["findings"]["info"] == 1);

  d.notes = {"not UTF-8: \xFF"};
  CHECK_THROWS_AS(report::render_diagnosis(d, cluster, report::Format::json, report::Style{}), nlohmann::json::type_error);
}

namespace {

// Records each piece written to it.
class PieceLog : public std::streambuf {
public:
  std::string text;
  std::vector<std::size_t> pieces;

protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    text.append(s, static_cast<std::size_t>(n));
    pieces.push_back(static_cast<std::size_t>(n));
    return n;
  }
  int overflow(int c) override {
    if (c != traits_type::eof()) xsputn(std::string(1, static_cast<char>(c)).data(), 1);
    return c;
  }
};

} // namespace

TEST_CASE("report::print_diagnosis -o json streams the text in pieces, never holding it whole") {
  diagnose::Diagnosis d;
  for (int i = 0; i < 3000; ++i) {
    diagnose::PendingPod p;
    p.ns = "ml";
    p.name = "trainer-" + std::to_string(i);
    p.scheduler.source = "event";
    p.scheduler.message = "0/5000 nodes are available: 500 Insufficient nvidia.com/gpu, 4500 node(s) didn't match.";
    d.pending_pods.push_back(p);
  }
  const report::ClusterInfo cluster{"ctx", "https://example:6443"};
  const std::string whole = report::render_diagnosis(d, cluster, report::Format::json, report::Style{});
  REQUIRE(whole.size() > 500'000);

  PieceLog log;
  std::ostream out(&log);
  report::print_diagnosis(out, d, cluster, report::Format::json, report::Style{});
  CHECK(log.text == whole);
  CHECK(log.pieces.size() > 10);
  CHECK(*std::max_element(log.pieces.begin(), log.pieces.end()) < 80 * 1024);

  SUBCASE("text that is not UTF-8: the tree's error, and not a byte written") {
    d.pending_pods[2999].name = "bad\xFF";
    PieceLog bad;
    std::ostream bad_out(&bad);
    CHECK_THROWS_AS(report::print_diagnosis(bad_out, d, cluster, report::Format::json, report::Style{}),
                    nlohmann::json::type_error);
    CHECK(bad.text.empty());
  }
  SUBCASE("other formats print what render_diagnosis returns") {
    PieceLog table;
    std::ostream table_out(&table);
    report::print_diagnosis(table_out, d, cluster, report::Format::table, report::Style{});
    CHECK(table.text == report::render_diagnosis(d, cluster, report::Format::table, report::Style{}));
  }
}
