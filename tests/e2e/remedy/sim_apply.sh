#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The runbook's incident end to end under `fakekube --simulate` (issue 6, "Done when"):
# diagnose names the causes → apply --dry-run=client sends no mutation → --dry-run=server sends
# only dryRun=All mutations → apply --yes waits until every formerly Pending GPU pod runs and
# each GPU node advertises physical × 4 → verify exit 0 → diagnose exit 0 → apply again sends no
# mutation → undo → the objects apply touched equal the start (jq, ignoring what the server
# and the simulation own). Variants (--case), each from the same base scenario:
#   helm      the incident as it is: a Helm-installed plugin, re-pointed in place
#   static    eksctl's static DaemonSet in kube-system, re-pointed in place
#   replace   the Helm release replaced by a native install (--strategy replace); undo re-creates it
#   operator  a GPU Operator plugin: its ClusterPolicy is patched, its DaemonSet never touched
#   rbac      a user who may not update DaemonSets: exit 3, the permission named, nothing sent
#   fault     the API refuses the user's token after the first change: exit 4, then undo restores
#   sigint    SIGINT after the first change: exit 4 with the undo command, then undo restores
#   smoke     verify --smoke: fails (exit 1, the scheduler's reason) before apply, passes after, as a
#             user with only the packaged roles; a read-only user and a leftover smoke Deployment
#             are refused before any write; SIGINT/SIGTERM mid-smoke; nothing of it is ever left
#   gfd       a native install with --gfd (--strategy replace): GFD labels the GPU nodes, verify's
#             gfd-labels rows pass instead of being skipped, undo removes GFD again
#   gfd_stale stale GFD labels (replicas=1) and no GFD: bare verify exits 0, its gfd-labels rows
#             skipped with GS408's fix; diagnose names GS408
#   gfd_running the chart's GFD DaemonSet running without a config: apply re-points it with the
#             plugin, --wait waits for its labels (4/time-slicing), verify's rows pass, undo restores it
#   sim_apply.sh --gpuslice BIN --fakekube BIN --scenario FILE [--case NAME]
set -uo pipefail
source "$(dirname "$0")/../lib/harness.sh"
harness_args "gpuslice fakekube scenario case" "$@"
rbac_dir=$(cd "$(dirname "$0")/../../../packaging/rbac" && pwd)
case_name=${case:-helm}
command -v kubectl >/dev/null && command -v jq >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
  { echo "kubectl, jq and python3-yaml are needed"; exit 77; }
harness_workdir sim-apply

# The variant's scenario, generated from the base one (shape 2: users, faults, simulation).
python3 - "$scenario" "$work/scenario.json" "$case_name" "$rbac_dir" <<'PY'
import glob, json, sys, yaml
base = yaml.safe_load(open(sys.argv[1]))
case = sys.argv[3]
objects = base["objects"]
helm_plugin = {"nvdp-nvidia-device-plugin", "nvdp-nvidia-device-plugin-mps-control-daemon"}

def owned_by_helm_plugin(o):
    return any(r.get("kind") == "DaemonSet" and r.get("name") in helm_plugin
               for r in o.get("metadata", {}).get("ownerReferences", []))

def without_helm_plugin(objs):
    return [o for o in objs
            if not (o["kind"] == "DaemonSet" and o["metadata"]["name"] in helm_plugin)
            and not (o["kind"] == "Secret" and o["metadata"]["name"].startswith("sh.helm.release.v1.nvdp."))
            and not owned_by_helm_plugin(o)]

def plugin_pod_spec():
    return {"priorityClassName": "system-node-critical",
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [{"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.19.0",
                            "env": [{"name": "FAIL_ON_INIT_ERROR", "value": "false"}],
                            "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
                            "volumeMounts": [{"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"}]}],
            "volumes": [{"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}}]}

if case == "static":  # eksctl's manifest (pkg/addons/assets/nvidia-device-plugin.yaml)
    objects = without_helm_plugin(objects)
    spec = plugin_pod_spec()
    spec["nodeSelector"] = {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"}
    objects.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "kube-system"},
                    "spec": {"selector": {"matchLabels": {"name": "nvidia-device-plugin-ds"}},
                             "updateStrategy": {"type": "RollingUpdate"},
                             "template": {"metadata": {"labels": {"name": "nvidia-device-plugin-ds"}}, "spec": spec}}})
elif case == "operator":  # the GPU Operator's DaemonSet, owned by its ClusterPolicy
    objects = without_helm_plugin(objects)
    uid = "3f1d0e4a-0000-4000-8000-00000000c001"
    objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-operator"}})
    objects.append({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": "clusterpolicies.nvidia.com"},
                    "spec": {"group": "nvidia.com", "scope": "Cluster",
                             "names": {"plural": "clusterpolicies", "singular": "clusterpolicy",
                                       "kind": "ClusterPolicy", "shortNames": ["cp"]},
                             "versions": [{"name": "v1", "served": True, "storage": True,
                                           "subresources": {"status": {}}}]}})
    objects.append({"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                    "metadata": {"name": "cluster-policy", "uid": uid},
                    "spec": {"devicePlugin": {"enabled": True}},
                    "status": {"state": "ready", "namespace": "gpu-operator"}})
    spec = plugin_pod_spec()
    spec["containers"][0]["name"] = "nvidia-device-plugin"
    spec["nodeSelector"] = {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"}
    objects.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator",
                                 "labels": {"app": "nvidia-device-plugin-daemonset"},
                                 "ownerReferences": [{"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                                                      "name": "cluster-policy", "uid": uid, "controller": True,
                                                      "blockOwnerDeletion": True}]},
                    "spec": {"selector": {"matchLabels": {"app": "nvidia-device-plugin-daemonset"}},
                             "updateStrategy": {"type": "RollingUpdate"},
                             "template": {"metadata": {"labels": {"app": "nvidia-device-plugin-daemonset"}},
                                          "spec": spec}}})
if case in ("gfd_stale", "gfd_running"):  # GFD's labels on the GPU nodes, from a GFD long gone
    for o in objects:
        labels = o["metadata"].get("labels", {}) if o["kind"] == "Node" else {}
        if "k8s.amazonaws.com/accelerator" in labels:
            labels.update({"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.count": "1",
                           "nvidia.com/gpu.replicas": "1", "nvidia.com/gpu.sharing-strategy": "none",
                           "nvidia.com/gpu.memory": "15360"})
if case == "gfd_running":  # … or the chart's GFD DaemonSet, still running, reading no config
    gfd_labels = {"app.kubernetes.io/name": "gpu-feature-discovery", "app.kubernetes.io/instance": "nvdp"}
    objects.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": "nvdp-nvidia-device-plugin-gpu-feature-discovery",
                                 "namespace": "nvidia-device-plugin",
                                 "labels": {**gfd_labels, "app.kubernetes.io/managed-by": "Helm"},
                                 "annotations": {"meta.helm.sh/release-name": "nvdp",
                                                 "meta.helm.sh/release-namespace": "nvidia-device-plugin"}},
                    "spec": {"selector": {"matchLabels": gfd_labels},
                             "updateStrategy": {"type": "RollingUpdate"},
                             "template": {"metadata": {"labels": gfd_labels},
                                          "spec": {"nodeSelector": {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"},
                                                   "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                                    "effect": "NoSchedule"}],
                                                   "containers": [{"name": "gpu-feature-discovery-ctr",
                                                                   "image": "nvcr.io/nvidia/k8s-device-plugin:v0.19.0",
                                                                   "command": ["gpu-feature-discovery"]}]}}}})
# A user who may read everything and write everything apply writes except DaemonSets.
objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "no-daemonsets"},
                "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]},
                          {"apiGroups": [""], "resources": ["nodes", "configmaps", "namespaces"],
                           "verbs": ["create", "update", "patch"]},
                          {"apiGroups": ["apps"], "resources": ["deployments", "statefulsets"],
                           "verbs": ["create", "update", "patch"]}]})
objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": "no-daemonsets"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "no-daemonsets"},
                "subjects": [{"kind": "User", "name": "limited"}]})
# The packaged roles; "smoker" holds exactly what the README says verify --smoke needs
# (gpuslice-diagnose, gpuslice-verify-smoke bound in the smoke namespace), "viewer" reads only.
for path in sorted(glob.glob(sys.argv[4] + "/*.yaml")):
    objects += [d for d in yaml.safe_load_all(open(path)) if d]
def bind(kind, name, role, user, ns=None):
    meta = {"name": name, **({"namespace": ns} if ns else {})}
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "User", "name": user}]}
objects += [bind("ClusterRoleBinding", "smoker-diagnose", "gpuslice-diagnose", "smoker"),
            bind("RoleBinding", "smoker-verify-smoke", "gpuslice-verify-smoke", "smoker", "default"),
            bind("ClusterRoleBinding", "viewer-diagnose", "gpuslice-diagnose", "viewer")]
out = {k: v for k, v in base.items() if k != "objects"}
out["objects"] = objects
out["users"] = [{"name": "admin", "groups": ["system:masters"], "clientCertificate": True},
                {"name": "flaky", "groups": ["system:masters"], "token": "flaky-e2e-token"},
                {"name": "limited", "token": "limited-e2e-token"},
                {"name": "smoker", "token": "smoker-e2e-token"},
                {"name": "viewer", "token": "viewer-e2e-token"}]
json.dump(out, open(sys.argv[2], "w"))
PY
[[ -s $work/scenario.json ]] || { echo "cannot build the scenario"; exit 1; }

start_simulation() { # start_simulation SCENARIO: fakekube --simulate, users flaky and limited known
  start_fakekube "$1" --simulate=50 --auth client-cert
  k config set-credentials flaky --token flaky-e2e-token >/dev/null
  k config set-credentials limited --token limited-e2e-token >/dev/null
  k config set-credentials smoker --token smoker-e2e-token >/dev/null
  k config set-credentials viewer --token viewer-e2e-token >/dev/null
}

k() { KUBECONFIG=$work/kubeconfig kubectl "$@"; }
gs() { NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }
# Requests of our binary that change something (SelfSubjectAccessReviews only ask).
mutations() {
  jq -s '[.[] | select(.method != "GET" and (.path | contains("selfsubjectaccessreviews") | not))] | length' \
    "$work/requests.jsonl"
}
# The objects apply touches, as kubectl shows them, without what the server and the
# simulation own: resourceVersion, managedFields, generation, timestamps, uid, status, the
# controllers' revision annotations, and the GFD/plugin node labels the simulation writes.
dump() {
  local kinds=nodes,configmaps,deployments,statefulsets,daemonsets,serviceaccounts,clusterroles,clusterrolebindings
  [[ $case_name == operator ]] && kinds=$kinds,clusterpolicies
  {
    k get "$kinds" -A -o json
    k get secrets -A -o json
  } | jq -S -s '[.[].items[]
      | select(.kind != "Secret" or .type == "helm.sh/release.v1")
      | select((.kind != "ClusterRole" and .kind != "ClusterRoleBinding") or (.metadata.name | test("nvidia|nvdp")))
      | del(.status, .metadata.resourceVersion, .metadata.managedFields, .metadata.generation, .metadata.uid,
            .metadata.creationTimestamp, .metadata.annotations["deprecated.daemonset.template.generation"],
            .metadata.annotations["deployment.kubernetes.io/revision"],
            .metadata.annotations["cluster-autoscaler.kubernetes.io/last-updated"],
            .metadata.ownerReferences[]?.uid)
      | if .kind == "Node" then .metadata.labels |= with_entries(select((.key | test("^nvidia.com/(gpu|cuda|gfd|mig|mps)") | not)
                                   or .key == "nvidia.com/gpu.present")) else . end
      | if .kind == "ConfigMap" and .metadata.name == "cluster-autoscaler-status" then del(.data) else . end
      | if (.metadata.annotations // {}) == {} then del(.metadata.annotations) else . end]'
}
gpu_allocatable() {
  k get nodes -l k8s.amazonaws.com/accelerator -o jsonpath='{range .items[*]}{.status.allocatable.nvidia\.com/gpu}{" "}{end}'
}
pending_gpu_pods() {
  k get pods -A -o json | jq -r '[.items[] | select(.status.phase == "Pending") |
    select([.spec.containers[].resources.limits["nvidia.com/gpu"] // empty] | length > 0)] | length'
}
# eventually NAME EXPECTED CMD...: retries CMD for up to 20 s until it prints EXPECTED.
eventually() {
  local name=$1 expected=$2 actual=""
  shift 2
  for _ in $(seq 100); do
    actual=$("$@" 2>&1)
    [[ $actual == "$expected" ]] && break
    sleep 0.2
  done
  check "$name" "$actual" "$expected"
}
# The cluster at rest before the run: the plugin rolled out, the simulation's first writes done.
settle() {
  eventually "[$case_name] the incident: nodes advertise 1 GPU each" "1 1 1 " gpu_allocatable
  sleep 1
}

full_run() { # the Done-when sequence; $1 = extra apply flags
  local extra=("$@")
  start_simulation "$work/scenario.json"
  settle
  dump >"$work/start.json" || { echo "kubectl cannot read fakekube"; exit 1; }
  if declare -F at_start >/dev/null; then at_start; fi
  check "[$case_name] GPU pods are Pending at the start" "$(pending_gpu_pods)" 4

  gs diagnose >"$work/diagnose.txt" 2>&1; code=$?
  check "[$case_name] diagnose exits 1" "$code" 1
  check "[$case_name] diagnose names time-slicing disabled (GS300)" "$(grep -c 'GS300' "$work/diagnose.txt" | tr -d ' ' | sed 's/^[1-9][0-9]*$/yes/')" yes

  : >"$work/requests.jsonl"
  gs apply --replicas 4 --dry-run=client "${extra[@]}" >"$work/dry.txt" 2>&1; code=$?
  check "[$case_name] apply --dry-run=client exits 0" "$code" 0
  check "[$case_name] client dry run sends no mutation" "$(mutations)" 0

  : >"$work/requests.jsonl"
  gs apply --replicas 4 --dry-run=server "${extra[@]}" >"$work/server.txt" 2>&1; code=$?
  check "[$case_name] apply --dry-run=server exits 0" "$code" 0
  local sent all
  sent=$(mutations)
  all=$(jq -s '[.[] | select(.method != "GET" and (.path | contains("selfsubjectaccessreviews") | not))
                | select(.query | contains("dryRun=All"))] | length' "$work/requests.jsonl")
  check "[$case_name] server dry run: every mutation carries dryRun=All" "$all" "$sent"
  check "[$case_name] server dry run: the plan's mutations were sent" "$([[ $sent -gt 0 ]] && echo yes)" yes
  check "[$case_name] server dry run leaves the objects as they were" \
    "$(dump | diff - "$work/start.json" >/dev/null && echo same)" same

  : >"$work/requests.jsonl"
  local t0=$SECONDS
  gs apply --replicas 4 --yes --timeout 60s "${extra[@]}" >"$work/apply.txt" 2>"$work/apply.err"; code=$?
  echo "     apply --yes (with --wait) took $((SECONDS - t0)) s"
  check "[$case_name] apply --yes exits 0 after waiting" "$code" 0
  [[ $code == 0 ]] || { cat "$work/apply.txt" "$work/apply.err"; }
  check "[$case_name] apply says time-slicing is in effect" "$(grep -c 'Time-slicing is in effect' "$work/apply.err")" 1
  check "[$case_name] every GPU node advertises 4" "$(gpu_allocatable)" "4 4 4 "
  check "[$case_name] no GPU pod is Pending" "$(pending_gpu_pods)" 0
  cp "$work/requests.jsonl" "$work/apply-requests.jsonl"

  gs verify >"$work/verify.txt" 2>&1; code=$?
  check "[$case_name] verify, no flags (what apply did), exits 0" "$code" 0
  [[ $code == 0 ]] || cat "$work/verify.txt"
  if declare -F after_verify >/dev/null; then after_verify; fi
  gs diagnose >"$work/diagnose2.txt" 2>&1; code=$?
  check "[$case_name] diagnose exits 0 after apply" "$code" 0
  [[ $code == 0 ]] || cat "$work/diagnose2.txt"

  : >"$work/requests.jsonl"
  gs apply --replicas 4 --yes "${extra[@]}" >"$work/again.txt" 2>&1; code=$?
  check "[$case_name] a second apply exits 0" "$code" 0
  check "[$case_name] a second apply sends no mutation" "$(mutations)" 0
  check "[$case_name] a second apply plans no change" "$(grep -c 'Nothing to change' "$work/again.txt")" 1

  gs undo --yes >"$work/undo.txt" 2>&1; code=$?
  check "[$case_name] undo exits 0" "$code" 0
  [[ $code == 0 ]] || cat "$work/undo.txt"
  # The simulation rolls the workloads back; compare once it has.
  local same=""
  for _ in $(seq 50); do
    dump >"$work/end.json"
    diff "$work/start.json" "$work/end.json" >"$work/end.diff" && { same=same; break; }
    sleep 0.2
  done
  check "[$case_name] undo: the objects equal the start" "$same" same
  [[ -z $same ]] && head -40 "$work/end.diff"
}

case $case_name in
  helm | static)
    full_run
    ;;
  replace)
    full_run --strategy replace
    check "[replace] the Helm DaemonSet was deleted during apply" \
      "$(jq -s '[.[] | select(.method == "DELETE" and (.path | endswith("/daemonsets/nvdp-nvidia-device-plugin")))] | length' \
        "$work/apply-requests.jsonl")" 1
    check "[replace] the release Secret was deleted during apply" \
      "$(jq -s '[.[] | select(.method == "DELETE" and (.path | contains("sh.helm.release.v1.nvdp")))] | length' \
        "$work/apply-requests.jsonl")" 1
    ;;
  operator)
    full_run
    check "[operator] the ClusterPolicy was patched" \
      "$(jq -s '[.[] | select(.method != "GET" and (.path | contains("clusterpolicies/cluster-policy")))] | length' \
        "$work/apply-requests.jsonl")" 1
    check "[operator] its DaemonSet was never written by us" \
      "$(jq -s '[.[] | select(.method != "GET" and (.path | contains("daemonsets")))] | length' "$work/apply-requests.jsonl")" 0
    ;;
  rbac)
    start_simulation "$work/scenario.json"
    settle
    dump >"$work/start.json"
    : >"$work/requests.jsonl"
    gs apply --replicas 4 --yes --user limited >"$work/rbac.txt" 2>"$work/rbac.err"; code=$?
    check "[rbac] apply without RBAC for the plugin step exits 3" "$code" 3
    check "[rbac] the missing permission is named" \
      "$(grep -c 'update daemonsets.apps in nvidia-device-plugin' "$work/rbac.err")" 1
    check "[rbac] nothing is sent" "$(mutations)" 0
    check "[rbac] the objects are as they were" "$(dump | diff - "$work/start.json" >/dev/null && echo same)" same
    ;;
  fault)
    # Calibrate: how many requests the user sends up to and including apply's first change.
    start_simulation "$work/scenario.json"
    settle
    : >"$work/requests.jsonl"
    gs apply --replicas 4 --yes --no-wait --user flaky >/dev/null 2>&1
    first=$(jq -s '[.[] | select(.user == "flaky")] | (map(.method != "GET" and (.path | contains("selfsubjectaccessreviews") | not)) | index(true)) + 1' \
      "$work/requests.jsonl")
    stop_fakekube
    # The token now expires right after that change: the next request of the run is refused.
    jq --argjson n "$first" '.faults = {tokenTtlRequests: $n}' "$work/scenario.json" >"$work/fault.json"
    start_simulation "$work/fault.json"
    settle
    dump >"$work/start.json"
    : >"$work/requests.jsonl"
    gs apply --replicas 4 --yes --no-wait --user flaky >"$work/fault.txt" 2>"$work/fault.err"; code=$?
    check "[fault] apply cut off after its first change exits 4" "$code" 4
    check "[fault] it made exactly one change" "$(jq -s '[.[] | select(.status < 300 and .method != "GET" and (.path | contains("selfsubjectaccessreviews") | not))] | length' "$work/requests.jsonl")" 1
    check "[fault] the undo command is printed" "$(grep -c 'undo --journal' "$work/fault.err")" 1
    gs undo --yes >"$work/undo.txt" 2>&1; code=$?
    check "[fault] undo (as another user) exits 0" "$code" 0
    check "[fault] undo restores the objects" "$(dump | diff - "$work/start.json" >/dev/null && echo same)" same
    ;;
  sigint)
    # Every answer 150 ms late, so the run is still going when SIGINT comes after its first
    # change; a script's background job starts with SIGINT ignored, which must not matter.
    jq '.faults = {latencyMs: 150}' "$work/scenario.json" >"$work/slow.json"
    start_simulation "$work/slow.json"
    settle
    dump >"$work/start.json"
    : >"$work/requests.jsonl"
    # A simple command, not the gs function: $! must be the binary itself, not a subshell
    # (a subshell would take the signal, wait for the binary and exit 0).
    NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" apply --replicas 4 --yes --no-wait \
      >"$work/int.txt" 2>"$work/int.err" &
    apply_pid=$!
    changed() { jq -s '[.[] | select(.status < 300 and .method != "GET" and (.path | contains("selfsubjectaccessreviews") | not))] | length' "$work/requests.jsonl"; }
    for _ in $(seq 300); do [[ $(changed) -ge 1 ]] && break; sleep 0.05; done
    kill -INT "$apply_pid"
    wait "$apply_pid"; code=$?
    check "[sigint] apply interrupted by SIGINT exits 4" "$code" 4
    check "[sigint] it stopped before its last change" "$([[ $(changed) -lt 4 ]] && echo yes)" yes
    check "[sigint] the undo command is printed" "$(grep -c 'undo --journal' "$work/int.err")" 1
    gs undo --yes >"$work/undo.txt" 2>&1; code=$?
    check "[sigint] undo exits 0" "$code" 0
    check "[sigint] undo restores the objects" "$(dump | diff - "$work/start.json" >/dev/null && echo same)" same
    ;;
  smoke)
    # Everything the smoke test ever created, as the API lists it.
    smoke_left() { k get deployments,replicasets,pods -A -l app.kubernetes.io/name=gpuslice-smoke -o name | wc -l | tr -d ' '; }
    smoke_row() { jq -r --arg f "$2" '[.checks[] | select(.check == "smoke" and (.object | startswith("deployment/")))][0][$f]' "$1"; }
    start_simulation "$work/scenario.json"
    settle
    # Before apply: 3 GPU nodes × 1 GPU × 4 replicas = 12 slots, 3 held, so 9 pods that cannot fit.
    : >"$work/requests.jsonl"
    gs verify --replicas 4 --smoke --timeout 6s -o json >"$work/smoke-before.json" 2>"$work/smoke-before.err"; code=$?
    check "[smoke] before apply: verify --smoke exits 1" "$code" 1
    check "[smoke] before apply: 9 pods, none Running" "$(smoke_row "$work/smoke-before.json" actual)" "0 Running, 9 Pending, 0 starting"
    check "[smoke] before apply: the scheduler's reason is named" \
      "$(smoke_row "$work/smoke-before.json" detail | grep -c 'timed out; 9 pod(s) Pending: 0/9 nodes are available: 3 Insufficient nvidia.com/gpu')" 1
    check "[smoke] before apply: the Deployment was created once and deleted once" \
      "$(jq -s -r '[.[] | select(.path | test("/namespaces/default/deployments")) | select(.method == "POST" or .method == "DELETE") | .method] | join(" ")' "$work/requests.jsonl")" "POST DELETE"
    check "[smoke] before apply: nothing of the smoke is left" "$(smoke_left)" 0

    # A read-only user: refused by the preflight, before any write.
    : >"$work/requests.jsonl"
    gs verify --replicas 4 --smoke --user viewer >"$work/smoke-viewer.txt" 2>"$work/smoke-viewer.err"; code=$?
    check "[smoke] read-only user: exit 3" "$code" 3
    check "[smoke] read-only user: the permission is named" "$(grep -c 'create deployments.apps in default' "$work/smoke-viewer.err")" 1
    check "[smoke] read-only user: nothing is sent" "$(mutations)" 0

    # A smoke Deployment left by a killed run (here: made by kubectl) is refused, not doubled.
    k -n default create deployment gpuslice-smoke-left --image=busybox --replicas=0 >/dev/null
    k -n default label deployment gpuslice-smoke-left app.kubernetes.io/name=gpuslice-smoke >/dev/null
    : >"$work/requests.jsonl"
    gs verify --replicas 4 --smoke >"$work/smoke-left.txt" 2>"$work/smoke-left.err"; code=$?
    check "[smoke] a leftover smoke Deployment: exit 3" "$code" 3
    check "[smoke] a leftover smoke Deployment: named, with the command to remove it" \
      "$(grep -c 'default/gpuslice-smoke-left from another run is still there.*delete deployment -l app.kubernetes.io/name=gpuslice-smoke' "$work/smoke-left.err")" 1
    check "[smoke] a leftover smoke Deployment: nothing is sent" "$(mutations)" 0
    k -n default delete deployment gpuslice-smoke-left >/dev/null

    # SIGINT or SIGTERM while the pods wait: the Deployment is still removed.
    for signal in INT TERM; do
      NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" verify --replicas 4 --smoke --timeout 60s \
        >"$work/smoke-$signal.txt" 2>"$work/smoke-$signal.err" &
      apply_pid=$!
      for _ in $(seq 200); do [[ $(smoke_left) -gt 0 ]] && break; sleep 0.05; done
      sleep 1
      kill "-$signal" "$apply_pid"
      wait "$apply_pid"; code=$?
      apply_pid=
      check "[smoke] SIG$signal: verify exits 1" "$code" 1
      check "[smoke] SIG$signal: the row says interrupted" "$(grep -c 'smoke .*interrupted;.*removed' "$work/smoke-$signal.txt")" 1
      check "[smoke] SIG$signal: nothing of the smoke is left" "$(smoke_left)" 0
    done

    gs apply --replicas 4 --yes --timeout 60s >"$work/apply.txt" 2>"$work/apply.err"; code=$?
    check "[smoke] apply --yes exits 0" "$code" 0
    # After: 12 slots, 7 held by the workloads: 5 smoke pods, all Running on the GPU nodes.
    : >"$work/requests.jsonl"
    gs verify --replicas 4 --smoke --timeout 30s --user smoker -o json >"$work/smoke-after.json" 2>"$work/smoke-after.err"; code=$?
    check "[smoke] after apply: verify --smoke (packaged roles only) exits 0" "$code" 0
    [[ $code == 0 ]] || { cat "$work/smoke-after.err"; jq -c '.checks[] | select(.result == "fail")' "$work/smoke-after.json"; }
    check "[smoke] after apply: every smoke pod Running" "$(smoke_row "$work/smoke-after.json" actual)" "5 Running, 0 Pending, 0 starting"
    check "[smoke] after apply: one passing smoke row per GPU node" \
      "$(jq '[.checks[] | select(.check == "smoke" and (.object | startswith("node/")) and .result == "pass")] | length' "$work/smoke-after.json")" 3
    check "[smoke] after apply: nothing of the smoke is left" "$(smoke_left)" 0
    # With -n the slots held by other namespaces' pods still count (notebook-ana-0 is in research).
    gs -n ml verify --replicas 4 --smoke --timeout 30s -o json >"$work/smoke-ns.json" 2>&1; code=$?
    check "[smoke] -n ml: verify --smoke exits 0" "$code" 0
    check "[smoke] -n ml: the same 5 pods" "$(smoke_row "$work/smoke-ns.json" actual)" "5 Running, 0 Pending, 0 starting"
    gs verify --replicas 4 --smoke --timeout 30s >"$work/smoke-after.txt" 2>&1; code=$?
    check "[smoke] the table shows the smoke rows" "$(grep -c '^smoke ' "$work/smoke-after.txt")" 4
    ;;
  gfd)
    after_verify() {
      local labels
      labels=$(k get nodes -l k8s.amazonaws.com/accelerator -o json |
        jq -r '[.items[].metadata.labels | (.["nvidia.com/gpu.replicas"] // "-") + "/" + (.["nvidia.com/gpu.sharing-strategy"] // "-")] | join(" ")')
      check "[gfd] GFD labels every GPU node: 4 replicas, time-slicing" "$labels" "4/time-slicing 4/time-slicing 4/time-slicing"
      gs verify --replicas 4 -o json >"$work/verify-gfd.json" 2>&1
      check "[gfd] apply installed the GFD DaemonSet" "$(k get daemonsets -A -o name | grep -c 'gpu-feature-discovery')" 1
      check "[gfd] verify's gfd-labels rows pass (not skipped)" \
        "$(jq -r '[.checks[] | select(.check == "gfd-labels") | .result] | join(" ")' "$work/verify-gfd.json")" "pass pass pass"
    }
    full_run --strategy replace --gfd
    check "[gfd] undo removed GFD" \
      "$(k get daemonsets -A -o name | grep -c 'gpu-feature-discovery')" 0
    ;;
  gfd_stale)
    after_verify() {
      gs verify -o json >"$work/verify-gfd.json" 2>&1
      check "[gfd_stale] verify's gfd-labels rows are skipped, not failed" \
        "$(jq -r '[.checks[] | select(.check == "gfd-labels") | .result] | join(" ")' "$work/verify-gfd.json")" \
        "skipped skipped skipped"
      check "[gfd_stale] each says the labels are stale, GS408, and the fix" \
        "$(jq '[.checks[] | select(.check == "gfd-labels") | select(.detail | test("^stale GFD labels, gpu-feature-discovery is not running \\(GS408\\): kubectl label node ip-.* nvidia.com/gpu.replicas- .*\\(or apply --gfd\\)$"))] | length' "$work/verify-gfd.json")" 3
      gs diagnose >"$work/diagnose-gfd.txt" 2>&1
      check "[gfd_stale] diagnose names the stale labels (GS408)" "$(grep -c 'GS408' "$work/diagnose-gfd.txt" | sed 's/^[1-9][0-9]*$/yes/')" yes
    }
    full_run
    ;;
  gfd_running)
    gfd_labels() {
      k get nodes -l k8s.amazonaws.com/accelerator -o json |
        jq -r '[.items[].metadata.labels | (.["nvidia.com/gpu.replicas"] // "-") + "/" + (.["nvidia.com/gpu.sharing-strategy"] // "-")] | join(" ")'
    }
    at_start() { check "[gfd_running] before apply GFD labels what it reads: 1 replica, none" "$(gfd_labels)" "1/none 1/none 1/none"; }
    after_verify() {
      local labels
      labels=$(k get nodes -l k8s.amazonaws.com/accelerator -o json |
        jq -r '[.items[].metadata.labels | (.["nvidia.com/gpu.replicas"] // "-") + "/" + (.["nvidia.com/gpu.sharing-strategy"] // "-")] | join(" ")')
      check "[gfd_running] GFD, re-pointed with the plugin, labels 4 replicas, time-slicing" "$labels" \
        "4/time-slicing 4/time-slicing 4/time-slicing"
      check "[gfd_running] the plan patched the GFD DaemonSet" \
        "$(grep -c 'DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin-gpu-feature-discovery' "$work/apply.txt" | sed 's/^[1-9][0-9]*$/yes/')" yes
      check "[gfd_running] apply --wait waited for the GFD labels" \
        "$(grep -c 'Time-slicing is in effect after .*GFD labels × 4: 3/3' "$work/apply.err")" 1
      gs verify -o json >"$work/verify-gfd.json" 2>&1
      check "[gfd_running] verify's gfd-labels rows pass" \
        "$(jq -r '[.checks[] | select(.check == "gfd-labels") | .result] | join(" ")' "$work/verify-gfd.json")" "pass pass pass"
    }
    full_run
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
stop_fakekube

harness_done
