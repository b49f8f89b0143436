// SPDX-License-Identifier: Apache-2.0
// Column sets of the real server's printers for workloads, namespaces, config maps and
// events (pkg/printers/internalversion), beyond the pod and node printers in table.cpp.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "resources.hpp"

namespace fakekube {

struct Printer {
  nlohmann::json columns;                               // columnDefinitions
  std::function<nlohmann::json(const nlohmann::json&)> row; // cells for one object
};

// The printer for a built-in resource, or nullptr (NAME/AGE fallback).
const Printer* find_printer(const ResourceInfo& info);
// A column definition as the server sends it.
nlohmann::json table_column(const std::string& name, const std::string& type, int priority,
                            const std::string& format = "");
// kubectl's age of an RFC 3339 timestamp, "<unknown>" when empty.
std::string age_of(const std::string& timestamp);

} // namespace fakekube
