// SPDX-License-Identifier: Apache-2.0
// report/: turns values (Diagnosis, inventory, Plan) into text. Renderers return strings; only
// cli/ writes them out, so every renderer is testable without a terminal.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/diagnose.hpp>

namespace gpuslice::report {

// Output formats of -o.
enum class Format { table, json, yaml };

// Parses -o's value ("table" or "" → table, "json", "yaml"); nullopt for anything else.
std::optional<Format> parse_format(std::string_view text);

// Which cluster a diagnosis is of (from the kubeconfig, or the snapshot's metadata).
struct ClusterInfo {
  std::string context;
  std::string server;
};

// How text output may be decorated, decided once at start-up from the terminal and the
// environment (see decide_style).
struct Style {
  bool colour = false;
  int width = 0; // terminal columns; 0 = unknown (no truncation)
};

// Colour only when stdout is a TTY, NO_COLOR is unset or empty, and --no-color was not given;
// CLICOLOR_FORCE (non-empty, not "0") forces colour even when not a TTY. NO_COLOR wins over it.
Style decide_style(bool stdout_is_tty, bool no_color_flag, const char* no_color_env,
                   const char* clicolor_force_env, int terminal_width);

// Wraps text in an SGR colour when style.colour; colour names: red, yellow, cyan, green, bold, dim.
std::string paint(const Style& style, const std::string& colour, const std::string& text);

// A plain text table in kubectl's `get` layout: upper-case headers, columns separated by three
// spaces, no borders. Cells longer than fits the style's width are cut with "…" in the last column.
class TextTable {
public:
  explicit TextTable(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells); // missing cells render empty
  std::string render(const Style& style) const;

private:
  std::vector<std::string> m_headers;
  std::vector<std::vector<std::string>> m_rows;
};

// The display width of UTF-8 text (code points; our output holds no wide characters).
std::size_t display_width(const std::string& text);

// The Diagnosis object of DESIGN §4.3 (apiVersion gpuslice/v1alpha1, kind Diagnosis); numbers
// stay numbers. The tree that both -o json and -o yaml print.
nlohmann::ordered_json diagnosis_to_json(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster);

// Human report: a one-line verdict, findings by severity with their remedy commands, the GPU
// node table and the pending pod table with the scheduler's and the autoscaler's reasons.
std::string render_diagnosis_table(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                                   const Style& style);

// Diagnosis in any format: table, JSON (two-space indent), or YAML. Ends with a newline.
std::string render_diagnosis(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                             Format format, const Style& style);
// The same, written to `out`; JSON is streamed as it is produced, never held whole.
void print_diagnosis(std::ostream& out, const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                     Format format, const Style& style);

// Cluster-wide sums over the GPU node inventory.
struct GpuTotals {
  long long physical = 0;
  long long slots = 0;     // whole and shared GPU slots; MIG slices are counted apart, in mig
  long long requested = 0;
  long long free = 0;
  std::vector<diagnose::MigSlots> mig; // per MIG profile, summed over the nodes, by profile name
  diagnose::DraGpus dra;               // GPUs the DRA driver publishes, summed (not slots either)
};
GpuTotals gpu_totals(const std::vector<diagnose::NodeInventory>& nodes);

// The GPU inventory alone (kind GpuInventory): per-node physical GPUs, replicas, slots,
// requested and free, with cluster totals. What `status` prints.
nlohmann::ordered_json inventory_to_json(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster);
std::string render_inventory(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                             Format format, const Style& style);

// Formats only a diagnosis has, beside Format: markdown (a summary to paste into an incident
// ticket or chat) and junit (one test case per catalog check, a failure per finding, for CI).
enum class DocumentFormat { markdown, junit };

// Parses "markdown" | "md" | "junit"; nullopt for anything else.
std::optional<DocumentFormat> parse_document_format(std::string_view text);

// Every value diagnose's -o accepts, in help order: table, json, yaml, markdown, junit.
std::vector<std::string> output_format_names();

// GitHub-flavoured Markdown: verdict, findings table, one section per finding with its
// evidence and fix command, GPU nodes and pending pods tables. Cells are pipe-escaped.
std::string render_diagnosis_markdown(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster);

// JUnit XML (popeye's shape): one <testcase> per catalog code (classname gpuslice.<area>),
// a <failure type="error|warning"> per error or warning finding of that code; info findings
// go to the test case's <system-out>. testsuite failures = test cases with a failure.
std::string render_diagnosis_junit(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster);

// Either document format; ends with a newline.
std::string render_diagnosis_document(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                                      DocumentFormat format);

// Settings of the GPU alerts (`alerts`): the PrometheusRule's name, namespace and labels (a
// Prometheus Operator picks rules up by its ruleSelector), and the time-slicing replicas per GPU.
struct AlertRuleOptions {
  int replicas = 1;                 // 1 = GPUs not shared
  std::string name = "gpuslice-gpu-alerts";
  std::string ns = "gpu-monitoring";
  std::vector<std::pair<std::string, std::string>> labels;
};

// The fraction of GPU memory in use above which a shared GPU is "nearly full": less than half
// of one share's fair part (total / replicas) is left, i.e. 1 - 1/(2 × replicas), never below
// 0.75 (so an unshared GPU warns at 75 %). 2 → 0.75, 4 → 0.875, 8 → 0.9375.
double memory_alert_threshold(int replicas);

// A PrometheusRule (monitoring.coreos.com/v1) over the DCGM exporter's metrics: memory nearly
// full (DCGM_FI_DEV_FB_USED / (FB_USED + FB_FREE)), memory exhausted, sustained saturation
// (DCGM_FI_DEV_GPU_UTIL) and the exporter's metrics being absent.
nlohmann::ordered_json prometheus_rule(const AlertRuleOptions& options);

// YAML text of a JSON tree: block style, two-space indent, strings quoted whenever a plain
// scalar would read back as another type or be ambiguous. Ends with a newline.
std::string to_yaml(const nlohmann::ordered_json& tree);

} // namespace gpuslice::report
