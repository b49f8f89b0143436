#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 23 parts 1 and 4 (and issue 22 part 3, verify --watch) under `fakekube --simulate`: bare `verify` takes its replicas and taint
# from the newest apply journal of the cluster (else the plugin's time-slicing config) and says
# so; flags override; with nothing to go on it says where it looked. `verify --smoke` killed with
# SIGKILL while its pods wait leaves a journal, and `undo --smoke` removes its Deployment, while a
# plain `undo` picks only apply journals.
#   verify_defaults.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail
source "$(dirname "$0")/../lib/harness.sh"
harness_args "gpuslice fakekube scenario" "$@"
command -v kubectl >/dev/null && command -v jq >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
  { echo "kubectl, jq and python3-yaml are needed"; exit 77; }
harness_workdir verify-defaults
python3 - "$scenario" "$work/scenario.json" <<'PY'
import json, sys, yaml
base = yaml.safe_load(open(sys.argv[1]))
base["users"] = [{"name": "admin", "groups": ["system:masters"], "clientCertificate": True}]
json.dump(base, open(sys.argv[2], "w"))
PY
k() { KUBECONFIG=$work/kubeconfig kubectl "$@"; }
gs() { NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }
smoke_deployments() { k get deployments -A -l app.kubernetes.io/name=gpuslice-smoke -o name | wc -l | tr -d ' '; }
smoke_left() { k get deployments,replicasets,pods -A -l app.kubernetes.io/name=gpuslice-smoke -o name | wc -l | tr -d ' '; }
eventually() { # eventually NAME EXPECTED COMMAND...
  local name=$1 expected=$2 actual=""
  shift 2
  for _ in $(seq 100); do actual=$("$@" 2>&1); [[ $actual == "$expected" ]] && break; sleep 0.2; done
  check "$name" "$actual" "$expected"
}
start_fakekube "$work/scenario.json" --simulate=50 --auth client-cert
eventually "the incident: nodes advertise 1 GPU each" "1 1 1 " \
  k get nodes -l k8s.amazonaws.com/accelerator -o jsonpath='{range .items[*]}{.status.allocatable.nvidia\.com/gpu}{" "}{end}'

# Nothing applied yet and the plugin reads no config: the error says where verify looked.
gs verify >"$work/none.txt" 2>"$work/none.err"; code=$?
check "bare verify before any apply exits 2" "$code" 2
check "it says --replicas is required and where it looked" \
  "$(grep -c -- "--replicas is required: .*apply journals of context .* in $work/home/.kube/gpuslice nor in a time-slicing config" "$work/none.err")" 1

# verify --smoke killed with SIGKILL while its 9 pods cannot fit (1 replica per GPU yet).
NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" verify --replicas 4 --smoke --timeout 60s \
  >"$work/smoke.txt" 2>"$work/smoke.err" &
apply_pid=$!
for _ in $(seq 200); do [[ $(smoke_deployments) -gt 0 ]] && break; sleep 0.05; done
kill -9 "$apply_pid"; wait "$apply_pid" 2>/dev/null; apply_pid=
check "the killed smoke run left its Deployment" "$(smoke_deployments)" 1
smoke_journal=$(grep -l '"command":"verify --smoke"' "$work"/home/.kube/gpuslice/journal-*.jsonl 2>/dev/null)
check "it left one smoke journal" "$(echo "$smoke_journal" | grep -c .)" 1
check "the smoke journal is mode 0600" "$(stat -c %a "$smoke_journal")" 600
gs undo --yes >"$work/undo-apply.txt" 2>"$work/undo-apply.err"; code=$?
check "plain undo does not take the smoke journal: exit 2" "$code" 2
check "it says there is no apply journal" "$(grep -c 'no apply journal in' "$work/undo-apply.err")" 1
gs undo --smoke --yes >"$work/undo-smoke.txt" 2>&1; code=$?
check "undo --smoke exits 0" "$code" 0
check "undo --smoke undid the smoke journal" "$(grep -c "Undoing $smoke_journal" "$work/undo-smoke.txt")" 1
eventually "nothing of the smoke is left" 0 smoke_left

gs apply --replicas 4 --yes --timeout 60s >"$work/apply.txt" 2>"$work/apply.err"; code=$?
check "apply --replicas 4 --yes exits 0" "$code" 0
[[ $code == 0 ]] || cat "$work/apply.txt" "$work/apply.err"

gs verify >"$work/verify.txt" 2>"$work/verify.err"; code=$?
check "bare verify after apply exits 0" "$code" 0
[[ $code == 0 ]] || cat "$work/verify.txt" "$work/verify.err"
check "it says the replicas and taint came from the apply journal" \
  "$(grep -c '^verify: replicas 4, taint nvidia.com/gpu=.*:NoSchedule, resource nvidia.com/gpu, 3 node(s) from journal [^;]*$' "$work/verify.err")" 1
gs verify -o json >"$work/verify.json" 2>/dev/null
check "JSON: replicas 4" "$(jq .replicas "$work/verify.json")" 4
check "JSON: settingsFrom.replicas names the apply journal" \
  "$(jq -r '.settingsFrom.replicas | startswith("journal '"$work"'/home/.kube/gpuslice/journal-")' "$work/verify.json")" true
check "JSON: the taint apply put on is checked" "$(jq -r '.taint != null and .settingsFrom.taint == .settingsFrom.replicas' "$work/verify.json")" true
check "JSON: no gpu-taint row is skipped" \
  "$(jq '[.checks[] | select(.check == "gpu-taint")] | (length > 0) and all(.result == "pass")' "$work/verify.json")" true
check "JSON: the resource is nvidia.com/gpu" "$(jq -r .settingsFrom.resource "$work/verify.json")" nvidia.com/gpu
check "JSON: the nodes are the three GPU nodes apply was for, from its journal" \
  "$(jq -r '"\(.settingsFrom.nodes | length) \(.settingsFrom.nodesFrom == .settingsFrom.replicas)"' "$work/verify.json")" "3 true"
one=$(jq -r '.settingsFrom.nodes[0]' "$work/verify.json")
gs verify --node "$one" -o json >"$work/one.json" 2>/dev/null; code=$?
check "verify --node NODE exits 0" "$code" 0
check "its node rows are that node's only" \
  "$(jq -r '[.checks[] | select(.object | startswith("node/")) | .object] | unique | join(" ")' "$work/one.json")" "node/$one"

# Without a journal: the config the plugin now reads; a flag still wins.
gs verify --journal-dir "$work/empty" -o json >"$work/config.json" 2>/dev/null; code=$?
check "without a journal verify exits 0" "$code" 0
check "its replicas come from the plugin's ConfigMap" \
  "$(jq -r '"\(.replicas) \(.settingsFrom.replicas | startswith("configmap ")) \(.taint)"' "$work/config.json")" "4 true null"
gs verify --replicas 2 -o json >"$work/flag.json" 2>/dev/null; code=$?
check "verify --replicas 2 after apply 4 exits 1" "$code" 1
check "its replicas come from the flag" "$(jq -r '"\(.replicas) \(.settingsFrom.replicas)"' "$work/flag.json")" "2 flag"
# Issue 22 part 3: a GPU node that joins after apply (a copy of one of the incident's, as a
# scale-up brings it) is checked by `verify --watch`, which says when it joins and judges the last
# round: the simulation's plugin pod on it reads the config and it advertises 4.
new_node=ip-10-0-99-17.us-west-2.compute.internal
gs verify --watch 20s -o json >"$work/watch.json" 2>"$work/watch.err" &
watch_pid=$!
sleep 6
k get node ip-10-0-1-17.us-west-2.compute.internal -o json |
  jq --arg name "$new_node" '.metadata = {name: $name, labels: (.metadata.labels | .["kubernetes.io/hostname"] = $name)}
      | .status.allocatable["nvidia.com/gpu"] = "0" | .status.capacity["nvidia.com/gpu"] = "0"' >"$work/new-node.json"
check "a GPU node joins" "$(k create -f "$work/new-node.json" 2>&1)" "node/$new_node created"
wait "$watch_pid"; code=$?
check "verify --watch 20s exits 0 once the new node advertises 4" "$code" 0
[[ $code == 0 ]] || cat "$work/watch.err"
check "the watch said the node joined" "$(grep -c "node/$new_node allocatable: new, " "$work/watch.err")" 1
check "the last round checked the new node: its allocatable passes" \
  "$(jq -r --arg node "node/$new_node" '[.checks[] | select(.check == "allocatable" and .object == $node) | .result] | join(" ")' "$work/watch.json")" pass
gs verify --watch 1x >/dev/null 2>"$work/watch-bad.err"; code=$?
check "a bad --watch duration exits 2" "$code" 2
harness_done
