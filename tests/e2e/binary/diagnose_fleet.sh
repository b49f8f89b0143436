#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# diagnose across clusters: two fakekube processes (the incident and its time-sliced twin)
# and a context whose server is down, merged through KUBECONFIG as kubectl merges them.
# The down cluster is reported in its row and does not stop the others; exit 3.
#   diagnose_fleet.sh --gpuslice BIN --fakekube BIN --scenarios DIR
set -uo pipefail

while (($#)); do
  case $1 in
    --gpuslice) gpuslice=$2; shift 2 ;;
    --fakekube) fakekube=$2; shift 2 ;;
    --scenarios) scenarios=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-fleet-XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

start() { # start NAME SCENARIO: a fakekube whose kubeconfig names context, cluster and user NAME
  "$fakekube" --scenario "$2" --kubeconfig-out "$work/$1.raw" >"$work/$1.url" 2>"$work/$1.err" &
  pids+=($!)
  for _ in $(seq 200); do [[ -s $work/$1.url ]] && break; sleep 0.05; done
  [[ -s $work/$1.url ]] || { echo "fakekube $1 did not start: $(cat "$work/$1.err")"; exit 1; }
  sed -e "s/name: fakekube/name: $1/; s/cluster: fakekube/cluster: $1/; s/current-context: fakekube/current-context: $1/" \
      -e "s/name: admin/name: $1-admin/; s/user: admin/user: $1-admin/" "$work/$1.raw" >"$work/$1.kubeconfig"
}
start incident "$scenarios/eks-gpu-incident.yaml"
start healthy "$scenarios/eks-gpu-timesliced.yaml"
# "down": the healthy cluster's credentials, pointed at a port nothing listens on.
sed -e 's/healthy/down/g' -e 's|server: https://127.0.0.1:[0-9]*|server: https://127.0.0.1:1|' \
  "$work/healthy.kubeconfig" >"$work/down.kubeconfig"
export KUBECONFIG=$work/incident.kubeconfig:$work/healthy.kubeconfig:$work/down.kubeconfig

passed=0 failed=0
check() {
  if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$work/fleet.json"; }

NO_COLOR=1 "$gpuslice" diagnose --all-contexts -o json >"$work/fleet.json" 2>"$work/fleet.err"
check "--all-contexts exits 3 when one cluster is down" "$?" 3
check "one result per context, sorted by name" "$(field "' '.join(x['cluster']['context'] for x in d)")" "down healthy incident"
check "the down cluster is a DiagnosisError" "$(field "d[0]['kind']")" DiagnosisError
check "the healthy cluster has no error findings" "$(field "d[1]['summary']['findings']['error']")" 0
check "the incident still has its 4 pending GPU pods" "$(field "d[2]['summary']['pendingGpuPods']")" 4
check "stderr names the down context" "$(grep -c 'context "down"' "$work/fleet.err")" 1

NO_COLOR=1 "$gpuslice" diagnose --contexts incident,healthy >"$work/fleet.txt" 2>&1
check "--contexts of reachable clusters exits 1 (incident has errors)" "$?" 1
check "table has a header and two rows" "$(wc -l <"$work/fleet.txt")" 3
check "incident row" "$(awk '$1=="incident" {print $2, $3, $4}' "$work/fleet.txt")" "4 3 0/3"
check "healthy row" "$(awk '$1=="healthy" {print $2, $5}' "$work/fleet.txt")" "0 0"

"$gpuslice" diagnose --contexts healthy --fail-on error >/dev/null 2>&1
check "a healthy fleet exits 0" "$?" 0
"$gpuslice" diagnose --contexts nosuch >/dev/null 2>"$work/usage.err"
check "an unknown context is a usage error" "$?" 2
check "...naming it" "$(cat "$work/usage.err")" 'kubectl gpuslice: error: --contexts: context "nosuch" does not exist'
"$gpuslice" diagnose --contexts incident --from-file x.json >/dev/null 2>&1
check "--contexts with --from-file is a usage error" "$?" 2

echo "$passed passed, $failed failed"
((failed == 0))
