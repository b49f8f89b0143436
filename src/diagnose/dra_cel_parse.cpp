// SPDX-License-Identifier: Apache-2.0
// DRA device selectors, parsing: a tokenizer and a recursive-descent parser building the tree.
#include "diagnose/dra_cel_syntax.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "diagnose/text.hpp"

namespace gpuslice::diagnose::cel {

namespace {

NodePtr make(Op op, std::vector<NodePtr> kids = {}, std::string name = {}) {
  auto n = std::make_shared<Node>();
  n->op = op;
  n->kids = std::move(kids);
  n->name = std::move(name);
  return n;
}

NodePtr literal(Value v) {
  auto n = std::make_shared<Node>();
  n->op = Op::literal;
  n->value = std::move(v);
  return n;
}

// ---- tokens ------------------------------------------------------------------------------------

enum class Tok { end, ident, integer, string, other_number, punct, bad };

struct Token {
  Tok kind = Tok::end;
  std::size_t pos = 0; // offset in the expression
  std::size_t len = 0;
  std::string value;   // decoded string literal
  std::int64_t integer = 0;
};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

// Reads a quoted string at s[i]; false for an unterminated one or an escape we do not decode
// (\x, \u, octal), which then ends tokenizing as a syntax we do not support.
bool read_string(std::string_view s, std::size_t& i, std::string& out) {
  const char quote = s[i++];
  while (i < s.size() && s[i] != quote) {
    char c = s[i++];
    if (c == '\\') {
      if (i == s.size()) return false;
      switch (s[i++]) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case '\\': c = '\\'; break;
      case '\'': c = '\''; break;
      case '"': c = '"'; break;
      default: return false;
      }
    }
    out.push_back(c);
  }
  if (i == s.size()) return false;
  ++i;
  return true;
}

// Splits s into tokens, ending with Tok::end, or with Tok::bad at the first thing not lexed.
std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    Token t;
    t.pos = i;
    if (i == s.size()) {
      out.push_back(t);
      return out;
    }
    const char c = s[i];
    if (is_ident_start(c)) {
      while (i < s.size() && is_ident_char(s[i])) ++i;
      t.kind = Tok::ident;
    } else if (is_digit(c)) {
      while (i < s.size() && is_digit(s[i])) ++i;
      const std::errc ec = std::from_chars(s.data() + t.pos, s.data() + i, t.integer).ec;
      t.kind = ec == std::errc() ? Tok::integer : Tok::other_number;
      // Doubles (1.5, 1e3), unsigned (1u) and hex (0x1f) are CEL numbers we do not evaluate.
      const bool fraction = i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1]);
      if (fraction || (i < s.size() && is_ident_char(s[i]))) {
        t.kind = Tok::other_number;
        while (i < s.size() && (is_ident_char(s[i]) || s[i] == '.')) ++i;
      }
    } else if (c == '"' || c == '\'') {
      t.kind = read_string(s, i, t.value) ? Tok::string : Tok::bad;
    } else {
      static constexpr std::string_view k_two[] = {"&&", "||", "==", "!=", "<=", ">="};
      static constexpr std::string_view k_one = "!<>()[].,?:-+*/%{}";
      t.kind = Tok::bad;
      for (std::string_view op : k_two) {
        if (s.substr(i, 2) == op) {
          t.kind = Tok::punct;
          i += 2;
          break;
        }
      }
      if (t.kind == Tok::bad && k_one.find(c) != std::string_view::npos) {
        t.kind = Tok::punct;
        ++i;
      }
    }
    t.len = i - t.pos;
    out.push_back(std::move(t));
    if (out.back().kind == Tok::bad) {
      out.push_back(Token{Tok::end, s.size(), 0, {}, 0});
      return out;
    }
  }
}

// ---- parser ------------------------------------------------------------------------------------

// Member functions we evaluate; any other call parses as unknown.
bool known_method(std::string_view name) {
  return name == "compareTo" || name == "isGreaterThan" || name == "isLessThan" ||
         name == "startsWith" || name == "endsWith" || name == "contains";
}

class Parser {
public:
  explicit Parser(std::string_view source) : m_src(source), m_toks(tokenize(source)) {}

  // The whole expression; on a syntax error an unknown node, with unsupported() set to the text
  // from the offending token on.
  NodePtr parse() {
    NodePtr root = expr();
    if (!m_failed && peek().kind != Tok::end) fail();
    if (!m_failed) return root;
    std::string_view rest = trim(m_src.substr(m_fail_pos));
    if (rest.empty()) rest = trim(m_src); // ended early: name the whole expression
    m_unsupported = rest.empty() ? "(empty expression)" : std::string(rest);
    return make(Op::unknown);
  }
  std::string take_unsupported() { return std::move(m_unsupported); }

private:
  // Nesting beyond this is refused rather than risking the stack on hostile input.
  static constexpr int k_max_depth = 200;

  const Token& peek(std::size_t ahead = 0) const {
    return m_toks[std::min(m_i + ahead, m_toks.size() - 1)];
  }
  std::string_view text(const Token& t) const { return m_src.substr(t.pos, t.len); }
  bool is(std::string_view punct, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return (t.kind == Tok::punct || t.kind == Tok::ident) && text(t) == punct;
  }
  bool accept(std::string_view punct) {
    if (!is(punct)) return false;
    ++m_i;
    return true;
  }
  void expect(std::string_view punct) {
    if (!accept(punct)) fail();
  }
  NodePtr fail() {
    if (!m_failed) m_fail_pos = peek().pos;
    m_failed = true;
    return make(Op::unknown);
  }
  // Source text from token `first` through the last one consumed.
  std::string_view span(std::size_t first) const {
    const Token& last = m_toks[m_i - 1];
    return m_src.substr(m_toks[first].pos, last.pos + last.len - m_toks[first].pos);
  }
  // An unknown node for tokens first..now, remembered if it starts before the one we have.
  NodePtr unsupported(std::size_t first) {
    if (m_unsupported.empty() || m_toks[first].pos < m_unsupported_pos) {
      m_unsupported = std::string(span(first));
      m_unsupported_pos = m_toks[first].pos;
    }
    return make(Op::unknown);
  }
  // Skips a bracketed group ((), [] or {}) starting at the current token, unparsed.
  void skip_group() {
    int depth = 0;
    do {
      const Token& t = peek();
      if (t.kind == Tok::end) {
        fail();
        return;
      }
      if (t.kind == Tok::punct) {
        const std::string_view p = text(t);
        if (p == "(" || p == "[" || p == "{") ++depth;
        if (p == ")" || p == "]" || p == "}") --depth;
      }
      ++m_i;
    } while (depth > 0);
  }

  NodePtr expr() {
    if (m_failed || ++m_depth > k_max_depth) return fail();
    NodePtr cond = logical(Op::or_);
    if (accept("?")) {
      NodePtr yes = logical(Op::or_);
      expect(":");
      NodePtr no = expr();
      cond = make(Op::cond, {cond, yes, no});
    }
    --m_depth;
    return cond;
  }

  // ConditionalOr and ConditionalAnd: && binds tighter than ||.
  NodePtr logical(Op op) {
    const std::string_view token = op == Op::or_ ? "||" : "&&";
    NodePtr left = op == Op::or_ ? logical(Op::and_) : relation();
    while (!m_failed && accept(token))
      left = make(op, {left, op == Op::or_ ? logical(Op::and_) : relation()});
    return left;
  }

  NodePtr relation() {
    static constexpr std::pair<std::string_view, Op> k_ops[] = {
        {"==", Op::eq}, {"!=", Op::ne}, {"<=", Op::le}, {">=", Op::ge},
        {"<", Op::lt},  {">", Op::gt},  {"in", Op::in}};
    NodePtr left = arithmetic();
    while (!m_failed) {
      const auto op = std::find_if(std::begin(k_ops), std::end(k_ops),
                                   [&](const auto& o) { return is(o.first); });
      if (op == std::end(k_ops)) break;
      ++m_i;
      // A list literal is understood only as the right side of `in`.
      NodePtr right = op->second == Op::in && is("[") ? list() : arithmetic();
      left = make(op->second, {left, right});
    }
    return left;
  }

  NodePtr list() {
    expect("[");
    std::vector<NodePtr> items;
    while (!m_failed && !is("]")) {
      items.push_back(expr());
      if (!accept(",")) break;
    }
    expect("]");
    return make(Op::list, std::move(items));
  }

  // + - * / % : parsed so the rest of the expression is understood, evaluated as unknown.
  NodePtr arithmetic() {
    const std::size_t first = m_i;
    NodePtr left = unary();
    bool any = false;
    while (!m_failed && (is("+") || is("-") || is("*") || is("/") || is("%"))) {
      ++m_i;
      unary();
      any = true;
    }
    return any && !m_failed ? unsupported(first) : left;
  }

  NodePtr unary() {
    if (m_failed || ++m_depth > k_max_depth) return fail();
    NodePtr node = accept("!") ? make(Op::not_, {unary()})
                   : accept("-") ? make(Op::neg, {unary()})
                                 : member();
    --m_depth;
    return node;
  }

  NodePtr member() {
    NodePtr node = primary();
    while (!m_failed) {
      if (accept("[")) {
        NodePtr key = expr();
        expect("]");
        node = make(Op::index, {node, key});
        continue;
      }
      if (!is(".") || peek(1).kind != Tok::ident) break;
      const std::size_t name_tok = m_i + 1;
      std::string name(text(peek(1)));
      m_i += 2;
      if (is("(")) {
        if (!known_method(name)) {
          skip_group();
          node = unsupported(name_tok);
          continue;
        }
        ++m_i;
        NodePtr arg = expr();
        expect(")");
        node = make(Op::method, {node, arg}, std::move(name));
      } else if (node->op == Op::device && name != "driver" && name != "attributes" &&
                 name != "capacity") {
        node = unsupported(name_tok - 2); // e.g. device.allowMultipleAllocations
      } else {
        node = make(Op::select, {node}, std::move(name));
      }
    }
    return node;
  }

  NodePtr primary() {
    if (m_failed) return make(Op::unknown);
    const std::size_t first = m_i;
    const Token& t = peek();
    switch (t.kind) {
    case Tok::integer: ++m_i; return literal(int_value(t.integer));
    case Tok::string: ++m_i; return literal(string_value(t.value));
    case Tok::other_number: ++m_i; return unsupported(first);
    case Tok::ident: break;
    default:
      if (accept("(")) {
        NodePtr inner = expr();
        expect(")");
        return inner;
      }
      if (is("[") || is("{")) {
        skip_group(); // list and map literals
        return m_failed ? make(Op::unknown) : unsupported(first);
      }
      return fail();
    }
    const std::string name(text(t));
    ++m_i;
    if (name == "true" || name == "false") return literal(bool_value(name == "true"));
    if (accept("(")) return call(name, first);
    if (name == "device") return make(Op::device);
    // Any other variable (cel.bind's, or a namespaced function like cel.bind itself).
    while (is(".") && peek(1).kind == Tok::ident) m_i += 2;
    if (is("(")) skip_group();
    return m_failed ? make(Op::unknown) : unsupported(first);
  }

  // A global function whose "(" is consumed.
  NodePtr call(const std::string& name, std::size_t first) {
    if (name == "quantity") {
      NodePtr arg = expr();
      expect(")");
      return make(Op::quantity, {arg});
    }
    if (name == "has") {
      NodePtr arg = expr();
      expect(")");
      if (arg->op == Op::select) return make(Op::has, {arg->kids[0]}, arg->name);
      return m_failed ? make(Op::unknown) : unsupported(first);
    }
    --m_i; // back onto "(" to skip the arguments unparsed
    skip_group();
    return m_failed ? make(Op::unknown) : unsupported(first);
  }

  std::string_view m_src;
  std::vector<Token> m_toks;
  std::size_t m_i = 0;
  int m_depth = 0;
  bool m_failed = false;
  std::size_t m_fail_pos = 0;
  std::string m_unsupported;
  std::size_t m_unsupported_pos = 0;
};

} // namespace

Parsed parse(std::string_view source) {
  Parser parser(source);
  NodePtr root = parser.parse();
  return {std::move(root), parser.take_unsupported()};
}

} // namespace gpuslice::diagnose::cel
