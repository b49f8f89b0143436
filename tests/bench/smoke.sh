#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Smoke test of the benchmark harness (no timing): a generated S cluster loads into fakekube,
# live `diagnose` runs on it and finds the Pending GPU pods the generator made.
#   smoke.sh --generator generate_cluster.py --gpuslice BIN --fakekube BIN
set -uo pipefail
while (($#)); do
  case $1 in
    --generator) generator=$2; shift 2 ;;
    --gpuslice) gpuslice=$2; shift 2 ;;
    --fakekube) fakekube=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-bench-smoke-XXXXXX")
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

python3 "$generator" --size S --seed 7 --out "$work/S.json" 2>/dev/null || { echo "generator failed"; exit 1; }
"$fakekube" --scenario "$work/S.json" --kubeconfig-out "$work/kubeconfig" >"$work/url" 2>"$work/err" &
pid=$!
for _ in $(seq 1200); do [[ -s $work/url ]] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
[[ -s $work/url ]] || { echo "fakekube did not load the S cluster: $(cat "$work/err")"; exit 1; }

passed=0 failed=0
check() { # check NAME ACTUAL EXPECTED
  if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
KUBECONFIG=$work/kubeconfig "$gpuslice" diagnose -A -o json >"$work/diagnosis.json" 2>"$work/diagnose.err"
check "diagnose exits 1 (error findings)" "$?" 1
summary() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["pendingGpuPods"], s["gpuNodes"])' "$1"; }
check "20 Pending GPU pods on 5 GPU nodes" "$(summary "$work/diagnosis.json")" "20 5"
echo "$passed passed, $failed failed"
((failed == 0))
