// SPDX-License-Identifier: Apache-2.0
#include "protobuf.hpp"

#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace fakekube {
namespace {

// A reader over protobuf wire format: varints and length-delimited fields are all the
// messages involved use; other wire types are skipped.
class Reader {
public:
  explicit Reader(std::string_view bytes) : m_bytes(bytes) {}

  bool done() const { return m_pos >= m_bytes.size(); }

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) {
        throw std::runtime_error("protobuf: truncated varint at byte " + std::to_string(m_pos));
      }
      const auto byte = static_cast<unsigned char>(m_bytes[m_pos++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return value;
      }
    }
    throw std::runtime_error("protobuf: varint too long at byte " + std::to_string(m_pos));
  }

  std::string_view bytes() {
    const std::uint64_t length = varint();
    if (length > m_bytes.size() - m_pos) {
      throw std::runtime_error("protobuf: field length " + std::to_string(length) +
                               " runs past the end at byte " + std::to_string(m_pos));
    }
    std::string_view out = m_bytes.substr(m_pos, length);
    m_pos += length;
    return out;
  }

  void skip(int wire_type) {
    switch (wire_type) {
    case 0:
      varint();
      break;
    case 1:
      advance(8);
      break;
    case 2:
      bytes();
      break;
    case 5:
      advance(4);
      break;
    default:
      throw std::runtime_error("protobuf: unsupported wire type " + std::to_string(wire_type));
    }
  }

private:
  void advance(std::size_t count) {
    if (count > m_bytes.size() - m_pos) {
      throw std::runtime_error("protobuf: truncated fixed-width field");
    }
    m_pos += count;
  }

  std::string_view m_bytes;
  std::size_t m_pos = 0;
};

// Calls visit(field_number, value) for each length-delimited field; skips the rest.
template <typename Visit> void each_field(std::string_view message, Visit visit) {
  Reader reader(message);
  while (!reader.done()) {
    const std::uint64_t tag = reader.varint();
    const int wire_type = static_cast<int>(tag & 7);
    if (wire_type == 2) {
      visit(static_cast<int>(tag >> 3), reader.bytes());
    } else {
      reader.skip(wire_type);
    }
  }
}

nlohmann::json resource_attributes(std::string_view message) {
  static const char* const k_names[] = {"",        "namespace",   "verb", "group",
                                        "version", "resource",    "subresource", "name"};
  nlohmann::json attributes = nlohmann::json::object();
  each_field(message, [&](int field, std::string_view value) {
    if (field >= 1 && field <= 7) {
      attributes[k_names[field]] = std::string(value);
    }
  });
  return attributes;
}

nlohmann::json non_resource_attributes(std::string_view message) {
  nlohmann::json attributes = nlohmann::json::object();
  each_field(message, [&](int field, std::string_view value) {
    if (field == 1) {
      attributes["path"] = std::string(value);
    } else if (field == 2) {
      attributes["verb"] = std::string(value);
    }
  });
  return attributes;
}

// The runtime.Unknown inside the "k8s\0" envelope: its type into `review`, its raw bytes out.
std::string_view unwrap(const std::string& body, nlohmann::json& review) {
  static const std::string k_magic("k8s\0", 4);
  if (body.compare(0, 4, k_magic) != 0) {
    throw std::runtime_error("protobuf: missing the k8s\\0 envelope prefix");
  }
  std::string_view raw;
  // runtime.Unknown: 1 typeMeta, 2 raw, 3 contentEncoding, 4 contentType.
  each_field(std::string_view(body).substr(4), [&](int field, std::string_view value) {
    if (field == 1) {
      each_field(value, [&](int type_field, std::string_view text) {
        if (type_field == 1) {
          review["apiVersion"] = std::string(text);
        } else if (type_field == 2) {
          review["kind"] = std::string(text);
        }
      });
    } else if (field == 2) {
      raw = value;
    }
  });
  return raw;
}

} // namespace

nlohmann::json decode_review_spec(const std::string& body) {
  nlohmann::json review = nlohmann::json::object();
  const std::string_view raw = unwrap(body, review);
  nlohmann::json spec = nlohmann::json::object();
  // Both kinds: 1 metadata, 2 spec; SelfSubjectRulesReviewSpec: 1 namespace.
  each_field(raw, [&](int field, std::string_view value) {
    if (field == 2) {
      each_field(value, [&](int spec_field, std::string_view text) {
        if (spec_field == 1) {
          spec["namespace"] = std::string(text);
        }
      });
    }
  });
  review["spec"] = spec;
  return review;
}

nlohmann::json decode_access_review(const std::string& body) {
  nlohmann::json review = {{"apiVersion", "authorization.k8s.io/v1"},
                           {"kind", "SelfSubjectAccessReview"}};
  const std::string_view raw = unwrap(body, review);
  nlohmann::json spec = nlohmann::json::object();
  // SelfSubjectAccessReview: 1 metadata, 2 spec; spec: 1 resourceAttributes,
  // 2 nonResourceAttributes.
  each_field(raw, [&](int field, std::string_view value) {
    if (field != 2) {
      return;
    }
    each_field(value, [&](int spec_field, std::string_view attributes) {
      if (spec_field == 1) {
        spec["resourceAttributes"] = resource_attributes(attributes);
      } else if (spec_field == 2) {
        spec["nonResourceAttributes"] = non_resource_attributes(attributes);
      }
    });
  });
  review["spec"] = spec;
  return review;
}

} // namespace fakekube
