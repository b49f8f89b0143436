#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# apply and undo against fakekube on the runbook's incident, the cluster compared with real
# kubectl dumps (jq drops resourceVersion, managedFields, timestamps and generation):
# - --dry-run=client sends no mutation; a non-TTY run without --yes is refused (exit 2) unsent;
# - --dry-run=server sends every mutation with dryRun=All and changes nothing;
# - a user without RBAC for the plan gets exit 3, the missing permissions, and no change;
# - apply --yes --no-wait (no simulation here) changes the cluster, the plugin DaemonSet included,
#   writes a 0600 journal; a second apply sends no mutation;
# - undo restores the cluster exactly, and undo again sends nothing.
#   apply_undo.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail
source "$(dirname "$0")/../lib/harness.sh"
harness_args "gpuslice fakekube scenario" "$@"
command -v kubectl >/dev/null && command -v jq >/dev/null || { echo "kubectl and jq are needed"; exit 77; }
harness_workdir remedy

# The scenario plus a user "viewer" who may only read: shape 2 of the scenario format.
python3 - "$scenario" "$work/scenario.json" <<'PY'
import json, sys, yaml
objects = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": "viewer-view"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "viewer-read"},
                "subjects": [{"kind": "User", "name": "viewer"}]})
objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "viewer-read"},
                "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}]})
users = [{"name": "admin", "groups": ["system:masters"], "token": "admin-e2e-token"},
         {"name": "viewer", "token": "viewer-e2e-token"}]
json.dump({"users": users, "faults": {"latencyMs": 0}, "objects": objects}, open(sys.argv[2], "w"))
PY

gs() { NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }
mutations() { jq -s '[.[] | select(.method != "GET" and (.path | contains("selfsubjectaccessreviews") | not))] | length' "$work/requests.jsonl"; }
dump() {
  KUBECONFIG=$work/kubeconfig kubectl get nodes,configmaps,deployments,statefulsets,daemonsets -A -o json |
    jq -S '[.items[] | del(.metadata.resourceVersion, .metadata.managedFields, .metadata.creationTimestamp,
                           .metadata.generation, .metadata.annotations["deprecated.daemonset.template.generation"])]'
}

start_fakekube "$work/scenario.json"
dump >"$work/start.json" || { echo "kubectl cannot read fakekube"; exit 1; }

# 1. Client dry run: the plan with diffs, reads only.
: >"$work/requests.jsonl"
gs apply --replicas 4 --dry-run=client >"$work/dry.txt" 2>"$work/dry.err"; code=$?
check "apply --dry-run=client exits 0" "$code" 0
check "client dry run sends no mutation" "$(mutations)" 0
check "the plan shows the taint as a diff" "$(grep -c '^    +.*effect: NoSchedule' "$work/dry.txt")" 3
check "the plan creates the ConfigMap" "$(grep -c '+ create ConfigMap/nvidia-device-plugin/time-slicing-config' "$work/dry.txt")" 1
gs apply --replicas 4 --dry-run=client -o json >"$work/dry.json"
check "-o json gives the Plan" "$(jq -r '.kind + " " + (.steps | length | tostring)' "$work/dry.json")" "Plan 5"

# 2. Not a terminal and no --yes: refused before any request.
: >"$work/requests.jsonl"
gs apply --replicas 4 </dev/null >/dev/null 2>"$work/refused.err"; code=$?
check "non-TTY apply without --yes exits 2" "$code" 2
check "the refusal sends no request" "$(wc -l <"$work/requests.jsonl")" 0

# 3. Server dry run: every mutation carries dryRun=All, nothing changes.
: >"$work/requests.jsonl"
gs apply --replicas 4 --dry-run=server >"$work/server.txt" 2>&1; code=$?
check "apply --dry-run=server exits 0" "$code" 0
check "server dry run sends 5 mutations" "$(mutations)" 5
check "each with dryRun=All" \
  "$(jq -s '[.[] | select(.method != "GET" and (.path | contains("selfsubjectaccessreviews") | not)) | select(.query | contains("dryRun=All"))] | length' "$work/requests.jsonl")" 5
check "server dry run leaves the cluster as it was" "$(dump | diff - "$work/start.json" >/dev/null && echo same)" same

# 4. A user who may only read: preflight lists what is missing, nothing changes.
: >"$work/requests.jsonl"
KUBECONFIG=$work/kubeconfig kubectl config set-credentials viewer --token viewer-e2e-token >/dev/null
gs apply --replicas 4 --yes --no-wait --user viewer >/dev/null 2>"$work/rbac.err"; code=$?
check "apply without RBAC exits 3" "$code" 3
check "the missing permission is named" "$(grep -c 'update nodes' "$work/rbac.err")" 1
check "without RBAC nothing is sent" "$(mutations)" 0

# 5. apply --yes.
: >"$work/requests.jsonl"
gs apply --replicas 4 --yes --no-wait >"$work/apply.txt" 2>"$work/apply.err"; code=$?
check "apply --yes exits 0" "$code" 0
check "apply sent 5 mutations (with the plugin DaemonSet patch)" "$(mutations)" 5
journal=$(ls "$work"/home/.kube/gpuslice/journal-*.jsonl 2>/dev/null | head -1)
check "the journal is mode 0600" "$(stat -c %a "$journal" 2>/dev/null)" 600
check "the undo command is printed" "$(grep -c "undo --journal $journal" "$work/apply.err")" 1
check "GPU nodes are tainted" \
  "$(KUBECONFIG=$work/kubeconfig kubectl get nodes -o json | jq '[.items[] | select(.spec.taints // [] | any(.key == "nvidia.com/gpu"))] | length')" 3

# 6. Idempotent.
: >"$work/requests.jsonl"
gs apply --replicas 4 --yes --no-wait >"$work/again.txt" 2>&1; code=$?
check "a second apply exits 0" "$code" 0
check "a second apply sends no mutation" "$(mutations)" 0
check "a second apply says nothing changes" "$(grep -c 'Nothing to change' "$work/again.txt")" 1

# 7. Undo: back to the start.
gs undo --yes >"$work/undo.txt" 2>&1; code=$?
check "undo exits 0" "$code" 0
check "undo restores the cluster" "$(dump | diff - "$work/start.json" >/dev/null && echo same)" same
: >"$work/requests.jsonl"
gs undo --yes --journal "$journal" >/dev/null 2>&1; code=$?
check "undo again exits 0" "$code" 0
check "undo again sends no mutation" "$(mutations)" 0
stop_fakekube

harness_done
