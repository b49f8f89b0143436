// SPDX-License-Identifier: Apache-2.0
#include "protobuf_schema.hpp"

#include <array>
#include <map>
#include <vector>

namespace fakekube::protobuf {
namespace {

using K = FieldKind;

FieldSpec msg(int number, std::string_view json_name, std::string_view message) {
  return {number, json_name, K::Message, false, message};
}
FieldSpec list(int number, std::string_view json_name, std::string_view message) {
  return {number, json_name, K::Message, true, message};
}
FieldSpec strings(int number, std::string_view json_name) {
  return {number, json_name, K::String, true};
}
FieldSpec kept(int number, std::string_view json_name, FieldKind kind) {
  return {number, json_name, kind, false, {}, true};
}

using Schemas = std::map<std::string_view, std::vector<FieldSpec>>;

// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto
void add_meta(Schemas& s) {
  s["ObjectMeta"] = {{1, "name", K::String},
                     {2, "generateName", K::String},
                     {3, "namespace", K::String},
                     {4, "selfLink", K::String},
                     {5, "uid", K::String},
                     {6, "resourceVersion", K::String},
                     {7, "generation", K::Int},
                     {8, "creationTimestamp", K::Time},
                     {9, "deletionTimestamp", K::Time},
                     {10, "deletionGracePeriodSeconds", K::Int},
                     {11, "labels", K::StringMap},
                     {12, "annotations", K::StringMap},
                     list(13, "ownerReferences", "OwnerReference"),
                     strings(14, "finalizers")};
  s["OwnerReference"] = {{1, "kind", K::String},
                         {3, "name", K::String},
                         {4, "uid", K::String},
                         {5, "apiVersion", K::String},
                         kept(6, "controller", K::Bool),
                         kept(7, "blockOwnerDeletion", K::Bool)};
  s["LabelSelector"] = {{1, "matchLabels", K::StringMap},
                        list(2, "matchExpressions", "LabelSelectorRequirement")};
  s["LabelSelectorRequirement"] = {{1, "key", K::String},
                                   {2, "operator", K::String},
                                   strings(3, "values")};
}

// k8s.io/api/core/v1/generated.proto: the kinds and the pod template their workloads carry.
void add_core(Schemas& s) {
  s["ConfigMap"] = {msg(1, "metadata", "ObjectMeta"),
                    {2, "data", K::StringMap},
                    {3, "binaryData", K::BytesMap},
                    kept(4, "immutable", K::Bool)};
  s["Secret"] = {msg(1, "metadata", "ObjectMeta"), {2, "data", K::BytesMap},
                 {3, "type", K::String},           {4, "stringData", K::StringMap},
                 kept(5, "immutable", K::Bool)};
  s["Namespace"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "NamespaceSpec"),
                    msg(3, "status", "NamespaceStatus")};
  s["NamespaceSpec"] = {strings(1, "finalizers")};
  s["NamespaceStatus"] = {{1, "phase", K::String}};
  s["ServiceAccount"] = {msg(1, "metadata", "ObjectMeta"), list(2, "secrets", "ObjectReference"),
                         list(3, "imagePullSecrets", "LocalObjectReference"),
                         kept(4, "automountServiceAccountToken", K::Bool)};
  s["ObjectReference"] = {{1, "kind", K::String},       {2, "namespace", K::String},
                          {3, "name", K::String},       {4, "uid", K::String},
                          {5, "apiVersion", K::String}, {6, "resourceVersion", K::String},
                          {7, "fieldPath", K::String}};
  s["LocalObjectReference"] = {{1, "name", K::String}};
  s["Service"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "ServiceSpec"),
                  msg(3, "status", "ServiceStatus")};
  s["ServiceSpec"] = {list(1, "ports", "ServicePort"),
                      {2, "selector", K::StringMap},
                      {3, "clusterIP", K::String},
                      {4, "type", K::String},
                      strings(5, "externalIPs"),
                      {7, "sessionAffinity", K::String},
                      {8, "loadBalancerIP", K::String},
                      strings(9, "loadBalancerSourceRanges"),
                      {10, "externalName", K::String},
                      {11, "externalTrafficPolicy", K::String},
                      {12, "healthCheckNodePort", K::Int},
                      {13, "publishNotReadyAddresses", K::Bool},
                      strings(18, "clusterIPs"),
                      strings(19, "ipFamilies"),
                      {17, "ipFamilyPolicy", K::String},
                      {22, "internalTrafficPolicy", K::String}};
  s["ServiceStatus"] = {};
  s["ServicePort"] = {{1, "name", K::String},        {2, "protocol", K::String},
                      kept(3, "port", K::Int),       {4, "targetPort", K::IntOrString},
                      {5, "nodePort", K::Int},       {6, "appProtocol", K::String}};
  s["ResourceQuota"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "ResourceQuotaSpec"),
                        msg(3, "status", "ResourceQuotaStatus")};
  s["ResourceQuotaSpec"] = {{1, "hard", K::QuantityMap}, strings(2, "scopes"),
                            msg(3, "scopeSelector", "ScopeSelector")};
  s["ResourceQuotaStatus"] = {{1, "hard", K::QuantityMap}, {2, "used", K::QuantityMap}};
  s["ScopeSelector"] = {list(1, "matchExpressions", "ScopedResourceSelectorRequirement")};
  s["ScopedResourceSelectorRequirement"] = {{1, "scopeName", K::String},
                                            {2, "operator", K::String},
                                            strings(3, "values")};
  s["PodTemplateSpec"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "PodSpec")};
  s["PodSpec"] = {list(2, "containers", "Container"),
                  {3, "restartPolicy", K::String},
                  kept(4, "terminationGracePeriodSeconds", K::Int),
                  kept(5, "activeDeadlineSeconds", K::Int),
                  {6, "dnsPolicy", K::String},
                  {7, "nodeSelector", K::StringMap},
                  {8, "serviceAccountName", K::String},
                  {9, "serviceAccount", K::String},
                  {10, "nodeName", K::String},
                  {11, "hostNetwork", K::Bool},
                  list(15, "imagePullSecrets", "LocalObjectReference"),
                  {16, "hostname", K::String},
                  {17, "subdomain", K::String},
                  {19, "schedulerName", K::String},
                  list(20, "initContainers", "Container"),
                  kept(21, "automountServiceAccountToken", K::Bool),
                  list(22, "tolerations", "Toleration"),
                  {24, "priorityClassName", K::String},
                  kept(25, "priority", K::Int),
                  {31, "runtimeClassName", K::String}};
  s["Container"] = {kept(1, "name", K::String),
                    {2, "image", K::String},
                    strings(3, "command"),
                    strings(4, "args"),
                    {5, "workingDir", K::String},
                    list(6, "ports", "ContainerPort"),
                    list(7, "env", "EnvVar"),
                    msg(8, "resources", "ResourceRequirements"),
                    {13, "terminationMessagePath", K::String},
                    {14, "imagePullPolicy", K::String},
                    {16, "stdin", K::Bool},
                    {17, "stdinOnce", K::Bool},
                    {18, "tty", K::Bool},
                    {20, "terminationMessagePolicy", K::String}};
  s["ContainerPort"] = {{1, "name", K::String}, {2, "hostPort", K::Int},
                        kept(3, "containerPort", K::Int), {4, "protocol", K::String},
                        {5, "hostIP", K::String}};
  s["EnvVar"] = {kept(1, "name", K::String), {2, "value", K::String}};
  s["ResourceRequirements"] = {{1, "limits", K::QuantityMap}, {2, "requests", K::QuantityMap}};
  s["Toleration"] = {{1, "key", K::String},
                     {2, "operator", K::String},
                     {3, "value", K::String},
                     {4, "effect", K::String},
                     kept(5, "tolerationSeconds", K::Int)};
}

// k8s.io/api apps/v1 and batch/v1.
void add_workloads(Schemas& s) {
  s["Deployment"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "DeploymentSpec"),
                     msg(3, "status", "DeploymentStatus")};
  s["DeploymentSpec"] = {kept(1, "replicas", K::Int),
                         msg(2, "selector", "LabelSelector"),
                         msg(3, "template", "PodTemplateSpec"),
                         msg(4, "strategy", "DeploymentStrategy"),
                         {5, "minReadySeconds", K::Int},
                         kept(6, "revisionHistoryLimit", K::Int),
                         {7, "paused", K::Bool},
                         kept(9, "progressDeadlineSeconds", K::Int)};
  s["DeploymentStatus"] = {};
  s["DeploymentStrategy"] = {{1, "type", K::String},
                             msg(2, "rollingUpdate", "RollingUpdateDeployment")};
  s["RollingUpdateDeployment"] = {{1, "maxUnavailable", K::IntOrString},
                                  {2, "maxSurge", K::IntOrString}};
  s["Job"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "JobSpec"),
              msg(3, "status", "JobStatus")};
  s["JobSpec"] = {kept(1, "parallelism", K::Int),
                  kept(2, "completions", K::Int),
                  kept(3, "activeDeadlineSeconds", K::Int),
                  msg(4, "selector", "LabelSelector"),
                  kept(5, "manualSelector", K::Bool),
                  msg(6, "template", "PodTemplateSpec"),
                  kept(7, "backoffLimit", K::Int),
                  kept(8, "ttlSecondsAfterFinished", K::Int),
                  {9, "completionMode", K::String},
                  kept(10, "suspend", K::Bool)};
  s["JobStatus"] = {};
  s["CronJob"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "CronJobSpec"),
                  msg(3, "status", "CronJobStatus")};
  s["CronJobSpec"] = {{1, "schedule", K::String},
                      kept(2, "startingDeadlineSeconds", K::Int),
                      {3, "concurrencyPolicy", K::String},
                      kept(4, "suspend", K::Bool),
                      msg(5, "jobTemplate", "JobTemplateSpec"),
                      kept(6, "successfulJobsHistoryLimit", K::Int),
                      kept(7, "failedJobsHistoryLimit", K::Int),
                      {8, "timeZone", K::String}};
  s["CronJobStatus"] = {};
  s["JobTemplateSpec"] = {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "JobSpec")};
}

// k8s.io/api rbac/v1 and scheduling/v1.
void add_rbac_and_scheduling(Schemas& s) {
  s["PolicyRule"] = {strings(1, "verbs"), strings(2, "apiGroups"), strings(3, "resources"),
                     strings(4, "resourceNames"), strings(5, "nonResourceURLs")};
  s["Role"] = {msg(1, "metadata", "ObjectMeta"), list(2, "rules", "PolicyRule")};
  s["ClusterRole"] = {msg(1, "metadata", "ObjectMeta"), list(2, "rules", "PolicyRule"),
                      msg(3, "aggregationRule", "AggregationRule")};
  s["AggregationRule"] = {list(1, "clusterRoleSelectors", "LabelSelector")};
  s["Subject"] = {kept(1, "kind", K::String), {2, "apiGroup", K::String},
                  kept(3, "name", K::String), {4, "namespace", K::String}};
  s["RoleRef"] = {kept(1, "apiGroup", K::String), kept(2, "kind", K::String),
                  kept(3, "name", K::String)};
  s["RoleBinding"] = {msg(1, "metadata", "ObjectMeta"), list(2, "subjects", "Subject"),
                      msg(3, "roleRef", "RoleRef")};
  s["ClusterRoleBinding"] = s["RoleBinding"];
  s["PriorityClass"] = {msg(1, "metadata", "ObjectMeta"), kept(2, "value", K::Int),
                        {3, "globalDefault", K::Bool}, {4, "description", K::String},
                        {5, "preemptionPolicy", K::String}};
}

const Schemas& schemas() {
  static const Schemas table = [] {
    Schemas s;
    add_meta(s);
    add_core(s);
    add_workloads(s);
    add_rbac_and_scheduling(s);
    return s;
  }();
  return table;
}

struct KindEntry {
  std::string_view api_version;
  std::string_view kind;
};

constexpr std::array k_kinds{
    KindEntry{"v1", "ConfigMap"},        KindEntry{"v1", "Namespace"},
    KindEntry{"v1", "Secret"},           KindEntry{"v1", "ServiceAccount"},
    KindEntry{"v1", "Service"},          KindEntry{"v1", "ResourceQuota"},
    KindEntry{"apps/v1", "Deployment"},  KindEntry{"batch/v1", "Job"},
    KindEntry{"batch/v1", "CronJob"},    KindEntry{"rbac.authorization.k8s.io/v1", "Role"},
    KindEntry{"rbac.authorization.k8s.io/v1", "RoleBinding"},
    KindEntry{"rbac.authorization.k8s.io/v1", "ClusterRole"},
    KindEntry{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
    KindEntry{"scheduling.k8s.io/v1", "PriorityClass"},
};

} // namespace

std::span<const FieldSpec> message_fields(std::string_view message) {
  const auto found = schemas().find(message);
  if (found == schemas().end()) {
    return {};
  }
  return found->second;
}

std::string_view kind_message(std::string_view api_version, std::string_view kind) {
  for (const KindEntry& entry : k_kinds) {
    if (entry.api_version == api_version && entry.kind == kind) {
      return entry.kind;
    }
  }
  return {};
}

} // namespace fakekube::protobuf
