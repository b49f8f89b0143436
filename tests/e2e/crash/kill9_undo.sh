#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 of apply at every change it sends, then undo: the cluster is back to where it started.
# fakekube answers each request after a delay, so apply can be caught at each change k (inside
# steps and at step boundaries, k = 1 … all of them) in two places: once the server has applied
# change k while its response is still delayed, and while change k is journaled and on its way.
# After each kill, undo of the journal apply left must exit 0 and restore the objects apply
# touches (kubectl dump; resourceVersion, managedFields, timestamps and generation aside); a
# second undo sends nothing.
#   kill9_undo.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail
source "$(dirname "$0")/../lib/harness.sh"
harness_args "gpuslice fakekube scenario" "$@"
command -v kubectl >/dev/null && command -v jq >/dev/null || { echo "kubectl and jq are needed"; exit 77; }
harness_workdir kill9
latency_ms=250
slow_scenario "$scenario" "$work/scenario.json" "$latency_ms"

gs() { NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }
mutations() {
  jq -s '[.[] | select(.method != "GET" and (.path | contains("accessreviews") | not)
                 and (.query | contains("dryRun") | not))] | length' "$work/requests.jsonl"
}
dump() {
  KUBECONFIG=$work/kubeconfig kubectl get nodes,configmaps,deployments,statefulsets,daemonsets,serviceaccounts -A -o json |
    jq -S '[.items[] | del(.metadata.resourceVersion, .metadata.managedFields, .metadata.creationTimestamp,
                           .metadata.generation, .metadata.annotations["deprecated.daemonset.template.generation"])]'
}
apply_args=(apply --replicas 4 --yes)
gs apply --help 2>/dev/null | grep -q -- '--no-wait' && apply_args+=(--no-wait) # no simulation here

# How many changes a whole apply sends.
start_fakekube "$work/scenario.json"
dump >"$work/start.json" || { echo "kubectl cannot read fakekube"; exit 1; }
gs "${apply_args[@]}" >/dev/null 2>"$work/full.err"
check "an uninterrupted apply exits 0" "$?" 0
total=$(mutations)
check "an uninterrupted apply changes the cluster" "$((total > 0))" 1
stop_fakekube
rm -rf "$work/home"

# kill_at K WHEN: after: once the server logged the K-th change (its response still delayed);
# before: half a delay after the (K-1)-th, while the K-th is journaled and on its way.
kill_at() {
  local k=$1 when=$2 name="k=$1 ($2)"
  start_fakekube "$work/scenario.json"
  # A simple command, not the gs function: $! must be kubectl-gpuslice itself, not a subshell.
  NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "${apply_args[@]}" >"$work/apply.out" 2>"$work/apply.err" &
  apply_pid=$!
  local seen=$k
  [[ $when == before ]] && seen=$((k - 1))
  for _ in $(seq 600); do (($(mutations) >= seen)) && break; kill -0 "$apply_pid" 2>/dev/null || break; sleep 0.01; done
  [[ $when == before ]] && sleep "$(awk -v ms="$latency_ms" 'BEGIN{print ms / 2000}')"
  kill -9 "$apply_pid" 2>/dev/null
  wait "$apply_pid" 2>/dev/null
  apply_pid=
  local sent; sent=$(mutations)
  if [[ $when == after ]]; then
    check "$name: apply was killed after $k of $total changes" "$sent" "$k"
  else
    check "$name: apply was killed before its change $((k + 1)) reached the server" "$((sent <= k))" 1
  fi
  local journals; journals=$(ls "$work"/home/.kube/gpuslice/journal-*.jsonl 2>/dev/null | wc -l)
  if ((sent > 0)); then check "$name: the journal survived the kill" "$journals" 1; fi
  if ((journals > 0)); then
    gs undo --yes >"$work/undo.out" 2>"$work/undo.err"; local code=$?
    check "$name: undo exits 0" "$code" 0
    ((code == 0)) || sed 's/^/    /' "$work/undo.out" "$work/undo.err"
  fi
  dump >"$work/after.json"
  check "$name: undo restores the cluster" "$(diff "$work/after.json" "$work/start.json" >/dev/null && echo same)" same
  diff "$work/after.json" "$work/start.json" >/dev/null ||
    { diff "$work/after.json" "$work/start.json" | head -20; sed 's/^/    /' "$work/undo.out" "$work/undo.err"; }
  : >"$work/requests.jsonl"
  ((journals > 0)) && gs undo --yes >/dev/null 2>&1
  check "$name: a second undo sends nothing" "$(mutations)" 0
  stop_fakekube
  rm -rf "$work/home"
}

for ((k = 1; k <= total; k++)); do
  kill_at "$k" before
  kill_at "$k" after
done

harness_done
