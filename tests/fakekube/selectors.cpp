// SPDX-License-Identifier: Apache-2.0
#include "selectors.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "status_errors.hpp"

namespace fakekube {
namespace {

bool is_special(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '=' || c == '!' ||
         c == '(' || c == ')' || c == '<' || c == '>';
}

// A hand-written lexer mirroring pkg/labels: identifiers and the operator tokens.
class Lexer {
public:
  explicit Lexer(const std::string& text) : m_text(text) {}

  // The next token ("" at the end); identifiers come back verbatim.
  std::string next() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
      ++m_pos;
    }
    if (m_pos >= m_text.size()) {
      return "";
    }
    const char c = m_text[m_pos];
    if (c == '=' || c == '!') {
      if (m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '=') {
        m_pos += 2;
        return c == '=' ? "==" : "!=";
      }
      ++m_pos;
      return std::string(1, c);
    }
    if (c == ',' || c == '(' || c == ')' || c == '<' || c == '>') {
      ++m_pos;
      return std::string(1, c);
    }
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && !is_special(m_text[m_pos])) {
      ++m_pos;
    }
    return m_text.substr(start, m_pos - start);
  }

  std::string peek() {
    const std::size_t saved = m_pos;
    std::string token = next();
    m_pos = saved;
    return token;
  }

private:
  const std::string& m_text;
  std::size_t m_pos = 0;
};

bool is_operator_token(const std::string& token) {
  return token == "=" || token == "==" || token == "!=" || token == "!" || token == "," ||
         token == "(" || token == ")" || token == "<" || token == ">";
}

void check_key(const std::string& key) {
  const bool valid = !key.empty() && key.size() <= 317 &&
                     std::all_of(key.begin(), key.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
                              c == '-' || c == '_' || c == '/';
                     });
  if (!valid) {
    throw bad_request("unable to parse requirement: <nil>: Invalid value: \"" + key +
                      "\": name part must consist of alphanumeric characters, '-', '_' or '.'");
  }
}

void check_integer(const std::string& value) {
  const bool valid = !value.empty() &&
                     std::all_of(value.begin() + (value[0] == '-' ? 1 : 0), value.end(),
                                 [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!valid) {
    throw bad_request("unable to parse requirement: <nil>: Invalid value: \"" + value +
                      "\": for 'Gt', 'Lt' operators, the value must be an integer");
  }
}

std::vector<std::string> parse_set(Lexer& lexer) {
  if (lexer.next() != "(") {
    throw bad_request("unable to parse requirement: found '', expected: '('");
  }
  std::vector<std::string> values;
  bool expect_value = true;
  for (;;) {
    std::string token = lexer.next();
    if (token == ")") {
      if (expect_value && !values.empty()) {
        values.emplace_back(); // "a,)" holds the empty value, as the real parser allows
      }
      break;
    }
    if (token.empty()) {
      throw bad_request("unable to parse requirement: found '', expected: ')'");
    }
    if (token == ",") {
      if (expect_value) {
        values.emplace_back();
      }
      expect_value = true;
      continue;
    }
    if (is_operator_token(token)) {
      throw bad_request("unable to parse requirement: found '" + token +
                        "', expected: ',', ')' or identifier");
    }
    values.push_back(token);
    expect_value = false;
  }
  std::sort(values.begin(), values.end());
  return values;
}

// A label value may be empty; an operator where a value belongs is the parser's error.
std::string parse_value(Lexer& lexer) {
  const std::string token = lexer.peek();
  if (token.empty() || token == ",") {
    return "";
  }
  if (is_operator_token(token)) {
    throw bad_request("unable to parse requirement: found '" + token +
                      "', expected: identifier");
  }
  return lexer.next();
}

} // namespace

bool Selector::matches(const std::map<std::string, std::string>& values) const {
  for (const Requirement& req : requirements) {
    auto it = values.find(req.key);
    const bool has = it != values.end();
    const auto contains = [&](const std::string& value) {
      return std::find(req.values.begin(), req.values.end(), value) != req.values.end();
    };
    bool ok = false;
    switch (req.op) {
    case Requirement::Op::equals:
    case Requirement::Op::in:
      ok = has && contains(it->second);
      break;
    case Requirement::Op::not_equals:
    case Requirement::Op::not_in:
      ok = !has || !contains(it->second); // a missing key matches, as pkg/labels says
      break;
    case Requirement::Op::exists:
      ok = has;
      break;
    case Requirement::Op::not_exists:
      ok = !has;
      break;
    case Requirement::Op::greater:
    case Requirement::Op::less: {
      if (!has) {
        break;
      }
      try {
        std::size_t used = 0;
        const long long have = std::stoll(it->second, &used);
        const long long want = std::stoll(req.values.at(0));
        ok = used == it->second.size() &&
             (req.op == Requirement::Op::greater ? have > want : have < want);
      } catch (const std::exception&) {
        ok = false; // a non-integer label value never satisfies gt/lt
      }
      break;
    }
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

Selector parse_label_selector(const std::string& text) {
  Selector selector;
  Lexer lexer(text);
  if (lexer.peek().empty()) {
    return selector;
  }
  for (;;) {
    Requirement req;
    std::string token = lexer.next();
    if (token == "!") {
      req.key = lexer.next();
      check_key(req.key);
      req.op = Requirement::Op::not_exists;
    } else {
      if (is_operator_token(token) || token.empty()) {
        throw bad_request("unable to parse requirement: found '" + token +
                          "', expected: !, identifier, or 'end of string'");
      }
      req.key = token;
      check_key(req.key);
      const std::string op = lexer.peek();
      if (op.empty() || op == ",") {
        req.op = Requirement::Op::exists;
      } else if (op == "=" || op == "==" || op == "!=") {
        lexer.next();
        req.op = op == "!=" ? Requirement::Op::not_equals : Requirement::Op::equals;
        req.values = {parse_value(lexer)};
      } else if (op == "<" || op == ">") {
        lexer.next();
        req.op = op == ">" ? Requirement::Op::greater : Requirement::Op::less;
        req.values = {lexer.next()};
        check_integer(req.values[0]);
      } else if (op == "in" || op == "notin") {
        lexer.next();
        req.op = op == "in" ? Requirement::Op::in : Requirement::Op::not_in;
        req.values = parse_set(lexer);
      } else {
        throw bad_request("unable to parse requirement: found '" + op +
                          "', expected: in, notin, =, ==, !=, gt, lt");
      }
    }
    selector.requirements.push_back(std::move(req));
    const std::string separator = lexer.next();
    if (separator.empty()) {
      break;
    }
    if (separator != ",") {
      throw bad_request("found '" + separator + "', expected: ',' or 'end of string'");
    }
  }
  // The real parser sorts requirements by key; matching is order-independent anyway.
  std::stable_sort(selector.requirements.begin(), selector.requirements.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return selector;
}

Selector parse_field_selector(const std::string& text) {
  Selector selector;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', start);
    const std::string term =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    Requirement req;
    std::size_t at = term.find("!=");
    std::size_t op_len = 2;
    req.op = Requirement::Op::not_equals;
    if (at == std::string::npos) {
      req.op = Requirement::Op::equals;
      at = term.find("==");
      if (at == std::string::npos) {
        at = term.find('=');
        op_len = 1;
      }
    }
    if (at == std::string::npos) {
      throw bad_request("invalid selector: '" + text + "'; can't understand '" + term + "'");
    }
    req.key = term.substr(0, at);
    req.values = {term.substr(at + op_len)};
    selector.requirements.push_back(std::move(req));
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return selector;
}

namespace {

const std::set<std::string>& supported_fields(const std::string& resource_key) {
  static const std::map<std::string, std::set<std::string>> k_fields = {
      {"/pods",
       {"spec.nodeName", "spec.host", "spec.restartPolicy", "spec.schedulerName",
        "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
        "status.podIPs", "status.nominatedNodeName"}},
      {"/events",
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}},
      {"events.k8s.io/events",
       {"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
        "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
        "reportingController", "type"}},
      {"/nodes", {"spec.unschedulable"}},
      {"/namespaces", {"status.phase"}},
      {"/secrets", {"type"}},
      {"/services", {"spec.clusterIP", "spec.type"}},
      {"apps/replicasets", {"status.replicas"}},
  };
  static const std::set<std::string> k_none;
  auto it = k_fields.find(resource_key);
  return it == k_fields.end() ? k_none : it->second;
}

std::string scalar_text(const nlohmann::json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_null()) {
    return "";
  }
  return value.dump(); // booleans and numbers as the conversion functions print them
}

std::string field_value(const nlohmann::json& object, const std::string& dotted) {
  const nlohmann::json* node = &object;
  std::size_t start = 0;
  while (start < dotted.size()) {
    std::size_t dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!node->is_object() || !node->contains(part)) {
      return "";
    }
    node = &(*node)[part];
    if (dot == std::string::npos) {
      break;
    }
    start = dot + 1;
  }
  return scalar_text(*node);
}

} // namespace

void check_field_selector(const std::string& resource_key, const Selector& selector) {
  for (const Requirement& req : selector.requirements) {
    if (req.key == "metadata.name" || req.key == "metadata.namespace" ||
        supported_fields(resource_key).count(req.key) != 0) {
      continue;
    }
    throw bad_request("field label not supported: " + req.key);
  }
}

std::map<std::string, std::string> selectable_fields(const std::string& resource_key,
                                                     const nlohmann::json& object) {
  std::map<std::string, std::string> fields;
  const nlohmann::json metadata = object.value("metadata", nlohmann::json::object());
  fields["metadata.name"] = metadata.value("name", std::string());
  fields["metadata.namespace"] = metadata.value("namespace", std::string());
  for (const std::string& field : supported_fields(resource_key)) {
    fields[field] = field_value(object, field);
  }
  if (resource_key == "/pods") {
    fields["spec.host"] = fields["spec.nodeName"];
    fields["spec.hostNetwork"] = fields["spec.hostNetwork"].empty() ? "false"
                                                                    : fields["spec.hostNetwork"];
    // status.podIPs matches any of the pod's IPs; the index keeps the first, as podIP.
    fields["status.podIPs"] = fields["status.podIP"];
  } else if (resource_key == "/events") {
    fields["source"] = field_value(object, "source.component");
  } else if (resource_key == "/nodes" && fields["spec.unschedulable"].empty()) {
    fields["spec.unschedulable"] = "false";
  } else if (resource_key == "apps/replicasets" && fields["status.replicas"].empty()) {
    fields["status.replicas"] = "0";
  }
  return fields;
}

} // namespace fakekube
