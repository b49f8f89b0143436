#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The kubectl-gpuslice binary against fakekube on the runbook's incident:
# - live `diagnose` gives the same report (table and JSON) as `diagnose --from-file` on the
#   scenario, and as `diagnose --from-file` on a `snapshot` taken from the live cluster;
# - `snapshot` writes mode 0600 and holds no Secret data;
# - exit codes: 1 with error findings, 0 under --fail-on never, 2 for a bad flag with no
#   request sent, 3 when the server is unreachable.
#   diagnose_live.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail

while (($#)); do
  case $1 in
    --gpuslice) gpuslice=$2; shift 2 ;;
    --fakekube) fakekube=$2; shift 2 ;;
    --scenario) scenario=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-e2e-XXXXXX")
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$fakekube" --scenario "$scenario" --kubeconfig-out "$work/kubeconfig" \
  --request-log "$work/requests.jsonl" >"$work/url" 2>"$work/fakekube.err" &
pid=$!
for _ in $(seq 200); do [[ -s $work/url ]] && break; sleep 0.05; done
[[ -s $work/url ]] || { echo "fakekube did not start: $(cat "$work/fakekube.err")"; exit 1; }

passed=0 failed=0
check() { # check NAME ACTUAL EXPECTED
  if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
gs() { NO_COLOR=1 KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }

# Live and offline agree (the context and server lines differ by nature: compare without them).
gs diagnose >"$work/live.txt" 2>"$work/live.err"; code=$?
check "live diagnose exits 1 on error findings" "$code" 1
gs diagnose --from-file "$scenario" >"$work/file.txt" 2>/dev/null
sed -E 's/ \(context [^)]*\)//' "$work/live.txt" >"$work/live.cmp"
check "live table equals --from-file table" "$(diff "$work/live.cmp" "$work/file.txt" && echo same)" same
check "live diagnose wrote nothing to stderr" "$(cat "$work/live.err")" ""

gs diagnose -o json >"$work/live.json"
gs diagnose -o json --from-file "$scenario" >"$work/file.json"
strip_cluster() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("cluster"); print(json.dumps(d, sort_keys=True))' "$1"; }
check "live JSON equals --from-file JSON (but the cluster block)" \
  "$(strip_cluster "$work/live.json")" "$(strip_cluster "$work/file.json")"
check "live JSON names the server" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["server"])' "$work/live.json")" \
  "$(cat "$work/url")"

# Snapshot: private, Secret-free, and diagnosing it gives the live answer.
gs snapshot -o "$work/snap.json" 2>"$work/snap.err"; code=$?
check "snapshot exits 0" "$code" 0
check "snapshot file is mode 0600" "$(stat -c %a "$work/snap.json")" 600
check "snapshot holds no Secret data" \
  "$(python3 -c 'import json,sys; print(sum(1 for i in json.load(open(sys.argv[1]))["items"] if i.get("kind")=="Secret" and ("data" in i or "stringData" in i)))' "$work/snap.json")" 0
gs diagnose -o json --from-file "$work/snap.json" >"$work/snap-diag.json"
check "diagnose of the snapshot equals live (but the cluster block)" \
  "$(strip_cluster "$work/snap-diag.json")" "$(strip_cluster "$work/live.json")"

# Exit codes.
gs diagnose --fail-on never >/dev/null; check "--fail-on never exits 0" "$?" 0
: >"$work/requests.jsonl"
gs diagnose --fail-on sometimes >/dev/null 2>"$work/usage.err"; check "bad --fail-on exits 2" "$?" 2
check "a usage error sends no request" "$(wc -l <"$work/requests.jsonl")" 0
gs status -o json >/dev/null; check "status exits 0" "$?" 0
kill "$pid"; wait "$pid" 2>/dev/null; pid=
gs diagnose >/dev/null 2>"$work/down.err"; check "unreachable server exits 3" "$?" 3

echo "$passed passed, $failed failed"
((failed == 0))
