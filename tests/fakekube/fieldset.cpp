// SPDX-License-Identifier: Apache-2.0
#include "fieldset.hpp"

#include <map>

namespace fakekube {
namespace {

// Set by the server, never owned by a manager (structured-merge-diff's stripMeta).
bool server_owned(const FieldPath& prefix, const std::string& key) {
  if (prefix.empty()) {
    return key == "apiVersion" || key == "kind";
  }
  if (prefix.size() == 1 && prefix[0] == "f:metadata") {
    return key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" ||
           key == "generation" || key == "creationTimestamp" || key == "managedFields" ||
           key == "selfLink" || key == "deletionTimestamp" || key == "deletionGracePeriodSeconds";
  }
  return false;
}

std::string item_key(const std::string& key_name, const nlohmann::json& item) {
  return "k:" + nlohmann::json({{key_name, item.value(key_name, nlohmann::json())}}).dump();
}

bool keyed_list(const std::string& field, const nlohmann::json& list,
                std::string& key_name) {
  const std::optional<std::string> key = list_merge_key(field);
  if (!key || !list.is_array()) {
    return false;
  }
  for (const nlohmann::json& item : list) {
    if (!item.is_object() || !item.contains(*key)) {
      return false;
    }
  }
  key_name = *key;
  return true;
}

void collect(const nlohmann::json& node, FieldPath& path, FieldSet& out, bool with_status) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (server_owned(path, it.key()) || (path.empty() && it.key() == "status" && !with_status)) {
      continue;
    }
    path.push_back("f:" + it.key());
    std::string key_name;
    if (it->is_object() && !it->empty()) {
      collect(*it, path, out, with_status);
    } else if (keyed_list(it.key(), *it, key_name) && !it->empty()) {
      for (const nlohmann::json& item : *it) {
        path.push_back(item_key(key_name, item));
        out.insert(path); // the item itself, FieldsV1's "." entry
        collect(item, path, out, true);
        path.pop_back();
      }
    } else {
      out.insert(path);
    }
    path.pop_back();
  }
}

const nlohmann::json* child(const nlohmann::json& node, const std::string& element) {
  if (element.rfind("f:", 0) == 0) {
    const std::string key = element.substr(2);
    return node.is_object() && node.contains(key) ? &node[key] : nullptr;
  }
  if (element.rfind("k:", 0) == 0 && node.is_array()) {
    const nlohmann::json want = nlohmann::json::parse(element.substr(2));
    for (const nlohmann::json& item : node) {
      bool all = item.is_object();
      for (auto it = want.begin(); all && it != want.end(); ++it) {
        all = item.contains(it.key()) && item[it.key()] == it.value();
      }
      if (all) {
        return &item;
      }
    }
  }
  return nullptr;
}

} // namespace

std::optional<std::string> list_merge_key(const std::string& field) {
  static const std::map<std::string, std::string> k_keys = {
      {"containers", "name"},      {"initContainers", "name"}, {"ephemeralContainers", "name"},
      {"volumes", "name"},         {"env", "name"},            {"ports", "containerPort"},
      {"conditions", "type"},      {"addresses", "type"},      {"ownerReferences", "uid"},
      {"imagePullSecrets", "name"}, {"volumeMounts", "mountPath"}, {"hostAliases", "ip"},
  };
  auto it = k_keys.find(field);
  if (it == k_keys.end()) {
    return std::nullopt;
  }
  return it->second;
}

FieldSet fields_of(const nlohmann::json& object, bool with_status) {
  FieldSet out;
  FieldPath path;
  if (object.is_object()) {
    collect(object, path, out, with_status);
  }
  return out;
}

FieldSet changed_fields(const nlohmann::json& before, const nlohmann::json& after,
                        bool with_status) {
  FieldSet result;
  const FieldSet old_fields = fields_of(before, with_status);
  for (const FieldPath& path : fields_of(after, with_status)) {
    const nlohmann::json* was = value_at(before, path);
    const nlohmann::json* now = value_at(after, path);
    if (was == nullptr || now == nullptr || *was != *now) {
      result.insert(path);
    }
  }
  for (const FieldPath& path : old_fields) {
    if (value_at(after, path) == nullptr) {
      result.insert(path);
    }
  }
  return result;
}

nlohmann::json to_fields_v1(const FieldSet& set) {
  nlohmann::json tree = nlohmann::json::object();
  for (const FieldPath& path : set) {
    nlohmann::json* node = &tree;
    for (const std::string& element : path) {
      node = &(*node)[element];
      if (node->is_null()) {
        *node = nlohmann::json::object();
      }
    }
  }
  // A node that is itself in the set and has children gets FieldsV1's "." marker.
  for (const FieldPath& path : set) {
    nlohmann::json* node = &tree;
    for (const std::string& element : path) {
      node = &(*node)[element];
    }
    if (!node->empty() && !node->contains(".")) {
      (*node)["."] = nlohmann::json::object();
    }
  }
  return tree;
}

namespace {

void leaves(const nlohmann::json& node, FieldPath& path, FieldSet& out) {
  if (!node.is_object() || node.empty()) {
    out.insert(path);
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it.key() == ".") {
      out.insert(path);
      continue;
    }
    path.push_back(it.key());
    leaves(*it, path, out);
    path.pop_back();
  }
}

} // namespace

FieldSet from_fields_v1(const nlohmann::json& tree) {
  FieldSet out;
  FieldPath path;
  if (tree.is_object() && !tree.empty()) {
    leaves(tree, path, out);
  }
  return out;
}

std::string path_text(const FieldPath& path) {
  std::string text;
  for (const std::string& element : path) {
    if (element.rfind("f:", 0) == 0) {
      text += "." + element.substr(2);
    } else if (element.rfind("k:", 0) == 0) {
      const nlohmann::json key = nlohmann::json::parse(element.substr(2));
      text += "[";
      bool first = true;
      for (auto it = key.begin(); it != key.end(); ++it) {
        text += (first ? "" : ",") + it.key() + "=" + it.value().dump();
        first = false;
      }
      text += "]";
    } else {
      text += "." + element;
    }
  }
  return text;
}

const nlohmann::json* value_at(const nlohmann::json& object, const FieldPath& path) {
  const nlohmann::json* node = &object;
  for (const std::string& element : path) {
    node = child(*node, element);
    if (node == nullptr) {
      return nullptr;
    }
  }
  return node;
}

void erase_at(nlohmann::json& object, const FieldPath& path) {
  if (path.empty()) {
    return;
  }
  FieldPath parent_path(path.begin(), path.end() - 1);
  nlohmann::json* parent = const_cast<nlohmann::json*>(value_at(object, parent_path));
  if (parent == nullptr) {
    return;
  }
  const std::string& last = path.back();
  if (last.rfind("f:", 0) == 0 && parent->is_object()) {
    parent->erase(last.substr(2));
  } else if (last.rfind("k:", 0) == 0 && parent->is_array()) {
    const nlohmann::json* item = child(*parent, last);
    for (std::size_t i = 0; item != nullptr && i < parent->size(); ++i) {
      if (&(*parent)[i] == item) {
        parent->erase(i);
        break;
      }
    }
  }
}

} // namespace fakekube
