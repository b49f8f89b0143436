#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No lost update: while apply (and then undo) runs against a slow fakekube, another writer
# keeps changing the same GPU nodes and the GPU Deployment the way a careful controller does
# (read, change, replace with the resourceVersion, retry on 409): it adds labels, taints and
# tolerations of its own. Afterwards every one of the writer's labels, taints and tolerations
# is there, next to apply's (after apply) or without them (after undo).
#   concurrent_writer.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail
source "$(dirname "$0")/../lib/harness.sh"
harness_args "gpuslice fakekube scenario" "$@"
command -v kubectl >/dev/null && command -v jq >/dev/null || { echo "kubectl and jq are needed"; exit 77; }
harness_workdir writer

slow_scenario "$scenario" "$work/scenario.json" 120
# gpu-inference's pods without the toleration EKS's admission adds: apply must patch that
# Deployment's template, which the writer changes too.
python3 - "$work/scenario.json" <<'PY'
import json, sys
scenario = json.load(open(sys.argv[1]))
for o in scenario["objects"]:
    if o.get("kind") == "Pod" and o["metadata"]["name"].startswith("gpu-inference-"):
        spec = o["spec"]
        spec["tolerations"] = [t for t in spec.get("tolerations", []) if t.get("key") != "nvidia.com/gpu"]
json.dump(scenario, open(sys.argv[1], "w"))
PY
start_fakekube "$work/scenario.json"

k() { KUBECONFIG=$work/kubeconfig kubectl "$@"; }
gs() { NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }
gpu_nodes=$(k get nodes -o json | jq -r '[.items[] | select(.status.capacity["nvidia.com/gpu"] // "0" | tonumber > 0) | .metadata.name] | join(" ")')
deployment=ml/gpu-inference

# replace_with NAME-OF-RESOURCE JQ: read, change with jq, replace with the resourceVersion; retry on 409.
replace_with() {
  local ref=$1 filter=$2
  for _ in $(seq 50); do
    k get $ref -o json | jq "$filter" >"$work/w.json" || return 1
    k replace -f "$work/w.json" >/dev/null 2>"$work/w.err" && return 0
    grep -q -i conflict "$work/w.err" || { cat "$work/w.err" >&2; return 1; }
  done
  return 1
}
# writer ROUND: the writer's changes of one round, on each GPU node and on the Deployment.
writer() {
  local round=$1 node
  for node in $gpu_nodes; do
    replace_with "node/$node" ".metadata.labels[\"writer-$round\"] = \"yes\" |
      .spec.taints = ((.spec.taints // []) + [{key: \"writer-$round\", value: \"yes\", effect: \"PreferNoSchedule\"}])" || return 1
  done
  replace_with "deployment/${deployment#*/} -n ${deployment%/*}" \
    ".spec.template.spec.tolerations = ((.spec.template.spec.tolerations // []) + [{key: \"writer-$round\", operator: \"Exists\"}])"
}
writer_loop() { # writer_loop FIRST LAST
  local round
  for ((round = $1; round <= $2; round++)); do writer "$round" || { echo "writer failed in round $round" >&2; exit 1; }; done
}
apply_args=(apply --replicas 4 --yes)
gs apply --help 2>/dev/null | grep -q -- '--no-wait' && apply_args+=(--no-wait) # no simulation here

# has_all FIRST LAST: how many of the writer's rounds FIRST..LAST left all their marks.
has_all() {
  k get nodes -o json >"$work/nodes.json"
  k get deployment "${deployment#*/}" -n "${deployment%/*}" -o json >"$work/deployment.json"
  python3 - "$1" "$2" "$gpu_nodes" "$work/nodes.json" "$work/deployment.json" <<'PY'
import json, sys
first, last, names = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split()
nodes = {n["metadata"]["name"]: n for n in json.load(open(sys.argv[4]))["items"]}
dep = json.load(open(sys.argv[5]))
tols = {t.get("key") for t in dep["spec"]["template"]["spec"].get("tolerations", [])}
ok = 0
for r in range(first, last + 1):
    key = f"writer-{r}"
    if all(nodes[n]["metadata"].get("labels", {}).get(key) == "yes" and
           any(t["key"] == key for t in nodes[n]["spec"].get("taints", [])) for n in names) and key in tols:
        ok += 1
print(ok)
PY
}
gpu_taints() { k get nodes -o json | jq '[.items[] | select(.spec.taints // [] | any(.key == "nvidia.com/gpu"))] | length'; }

# apply while the writer runs rounds 1..4
writer_loop 1 4 &
writer_pid=$!
gs "${apply_args[@]}" >"$work/apply.out" 2>"$work/apply.err"; code=$?
wait "$writer_pid"; wcode=$?; writer_pid=
check "apply exits 0 while another writer changes the same objects" "$code" 0
((code == 0)) || cat "$work/apply.err"
check "the writer finished" "$wcode" 0
check "apply's taint is on every GPU node" "$(gpu_taints)" "$(wc -w <<<"$gpu_nodes")"
check "every label, taint and toleration of the writer survived apply" "$(has_all 1 4)" 4
check "apply's toleration is on the Deployment" \
  "$(k get deployment "${deployment#*/}" -n "${deployment%/*}" -o json | jq '[.spec.template.spec.tolerations[]? | select(.key == "nvidia.com/gpu")] | length > 0')" true

# undo while the writer runs rounds 5..8
writer_loop 5 8 &
writer_pid=$!
gs undo --yes >"$work/undo.out" 2>"$work/undo.err"; code=$?
wait "$writer_pid"; wcode=$?; writer_pid=
check "undo exits 0 while the writer runs" "$code" 0
((code == 0)) || cat "$work/undo.out" "$work/undo.err"
check "the writer finished again" "$wcode" 0
check "undo took apply's taint away" "$(gpu_taints)" 0
check "undo took apply's toleration away" \
  "$(k get deployment "${deployment#*/}" -n "${deployment%/*}" -o json | jq '[.spec.template.spec.tolerations[]? | select(.key == "nvidia.com/gpu")] | length')" 0
check "every mark of the writer survived apply and undo" "$(has_all 1 8)" 8

# How often the two writers really collided (409 Conflict answers): timing decides, so it is
# reported, not asserted; fakekube's conflict fault makes the collision certain in unit tests.
echo "conflicts answered during the run: $(jq -s '[.[] | select(.status == 409)] | length' "$work/requests.jsonl")"
harness_done
