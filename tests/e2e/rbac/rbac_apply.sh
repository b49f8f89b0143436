#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# packaging/rbac/gpuslice-apply.yaml (with gpuslice-diagnose and the Helm release role) is all
# that apply and undo need, against fakekube's RBAC, on the runbook's incident:
# - dave, bound to those roles, runs apply --yes: exit 0, no request refused, the same change
#   as an admin's dry run plans; a second apply changes nothing; undo restores, nothing refused;
# - erin, bound to the read-only roles, is stopped by the preflight: exit 3, the missing
#   permissions listed, and not one mutating request sent.
#   rbac_apply.sh --gpuslice BIN --fakekube BIN --scenario FILE --rbac DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
harness_args "gpuslice fakekube scenario rbac" "$@"
harness_workdir rbac-apply
rbac_start
# count_requests USER STATUS|mutating: that user's requests since the log was emptied
count_requests() {
  python3 - "$work/requests.jsonl" "$1" "$2" <<'PY'
import json, sys
log, user, what = sys.argv[1:4]
n = 0
for line in open(log):
    r = json.loads(line)
    if r.get("user") != user:
        continue
    if what == "mutating":
        # access reviews are POSTs that change nothing
        n += r["method"] in ("POST", "PUT", "PATCH", "DELETE") and "accessreviews" not in r["path"]
    else:
        n += r["status"] == int(what)
print(n)
PY
}
# apply waits for the plugin when it can; this fakekube runs no simulation
no_wait=()
"$gpuslice" apply --help 2>/dev/null | grep -q -- '--no-wait' && no_wait=(--no-wait)

as_user admin apply --replicas 4 --dry-run=client -o json >"$work/admin-plan.json" 2>"$work/admin-plan.err"
check "admin's client dry run plans changes" "$?" 0

: >"$work/requests.jsonl"
as_user erin apply --replicas 4 --yes "${no_wait[@]}" --journal-dir "$work/journal-erin" >"$work/erin.out" 2>"$work/erin.err"
check "erin (read-only roles): apply stops at the preflight, exit 3" "$?" 3
check "erin: the refusal says nothing was changed" "$(grep -c 'nothing was changed: you lack' "$work/erin.err")" 1
check "erin: the missing permissions are listed" "$(grep -cE '^  create configmaps in nvidia-device-plugin$' "$work/erin.err")" 1
check "erin: no mutating request was sent" "$(count_requests erin mutating)" 0

: >"$work/requests.jsonl"
as_user dave apply --replicas 4 --yes "${no_wait[@]}" --journal-dir "$work/journal" -o json >"$work/dave.json" 2>"$work/dave.err"
code=$?
check "dave (gpuslice-apply + diagnose + helm releases): apply exits 0" "$code" 0
[[ $code == 0 ]] || cat "$work/dave.err"
check "dave: no request was refused" "$(count_requests dave 403)" 0
check "dave: apply sent changes" "$(( $(count_requests dave mutating) > 0 ))" 1
check "dave's apply made the changes the admin's dry run planned" \
  "$(python3 - "$work/admin-plan.json" "$work/dave.json" <<'PY'
import json, sys
def key(step, c):
    o = c["object"]
    return (step, c["action"], o["kind"], o["namespace"], o["name"])
def planned(doc):
    return sorted(key(s["name"], c) for s in doc["steps"] for c in s["changes"] if c["changed"])
def done(doc):
    return sorted(key(c["step"], c) for c in doc["changes"] if c["changed"])
plan, result = (json.load(open(p)) for p in sys.argv[1:3])
print("same" if planned(plan) and planned(plan) == done(result) else f"{planned(plan)} != {done(result)}")
PY
)" same

: >"$work/requests.jsonl"
as_user dave apply --replicas 4 --yes "${no_wait[@]}" --journal-dir "$work/journal2" >/dev/null 2>"$work/dave2.err"
check "dave: a second apply exits 0" "$?" 0
check "dave: a second apply sends no change" "$(count_requests dave mutating)" 0

: >"$work/requests.jsonl"
as_user dave undo --yes --journal-dir "$work/journal" >"$work/undo.out" 2>"$work/undo.err"
code=$?
check "dave: undo exits 0" "$code" 0
[[ $code == 0 ]] || cat "$work/undo.err"
check "dave: undo had no request refused" "$(count_requests dave 403)" 0
check "dave: undo sent changes back" "$(( $(count_requests dave mutating) > 0 ))" 1

harness_done
