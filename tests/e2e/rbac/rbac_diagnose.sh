#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# packaging/rbac/gpuslice-diagnose.yaml is exactly what diagnose needs, against fakekube's RBAC:
# - a user bound to it (+ gpuslice-helm-releases in the plugin's namespace) gets the admin's
#   diagnosis, with no request refused;
# - every rule of the role is used (no grant is there for nothing);
# - without the Helm role only the Secret list is refused, and diagnose still answers;
# - a user with no role is refused every list and sees no GPU node (the role grants the view).
#   rbac_diagnose.sh --gpuslice BIN --fakekube BIN --scenario FILE --rbac DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
harness_args "gpuslice fakekube scenario rbac" "$@"
harness_workdir rbac
rbac_start
strip_cluster() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("cluster"); print(json.dumps(d, sort_keys=True))' "$1"; }
requests_of() { # the request log lines of one user since the log was emptied
  python3 -c 'import json,sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("user") == sys.argv[2]: print(json.dumps(r))' "$work/requests.jsonl" "$1"
}

as_user admin diagnose -o json >"$work/admin.json" 2>/dev/null
check "admin diagnoses (exit 1: error findings)" "$?" 1

: >"$work/requests.jsonl"
as_user alice diagnose -o json >"$work/alice.json" 2>"$work/alice.err"; code=$?
check "alice (gpuslice-diagnose + helm releases) exits as admin" "$code" 1
check "alice's diagnosis equals admin's" "$(strip_cluster "$work/alice.json")" "$(strip_cluster "$work/admin.json")"
check "alice wrote nothing to stderr" "$(cat "$work/alice.err")" ""
check "no request of alice was refused" \
  "$(requests_of alice | python3 -c 'import json,sys; print(sum(1 for l in sys.stdin if json.loads(l)["status"] == 403))')" 0

# Every rule of the role was needed: each (group, resource, verb) it grants was requested.
requests_of alice >"$work/alice.jsonl"
unused=$(python3 - "$rbac/gpuslice-diagnose.yaml" "$work/alice.jsonl" <<'PY'
import json, re, sys, yaml
role = yaml.safe_load(open(sys.argv[1]))
used = set()
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r["method"] != "GET":
        continue
    m = re.match(r"^/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([^/]+)(/[^/]+)?$", r["path"])
    if not m:
        continue
    used.add((m.group(1) or "", m.group(2), "get" if m.group(3) else "list"))
for rule in role["rules"]:
    for group in rule["apiGroups"]:
        for resource in rule["resources"]:
            for verb in rule["verbs"]:
                if (group, resource, verb) not in used:
                    print(f"{group or 'core'}/{resource} {verb}")
PY
)
check "every rule of gpuslice-diagnose is used" "$unused" ""

: >"$work/requests.jsonl"
as_user bob diagnose -o json >"$work/bob.json" 2>"$work/bob.err"; code=$?
check "bob (gpuslice-diagnose only) still diagnoses" "$code" 1
check "bob: only the Secret list is refused" \
  "$(requests_of bob | python3 -c 'import json,sys
print(sorted({json.loads(l)["path"].split("/")[-1] for l in sys.stdin if json.loads(l)["status"] == 403}))')" "['secrets']"

: >"$work/requests.jsonl"
as_user carol diagnose -o json >"$work/carol.json" 2>/dev/null
check "carol (no role): every list is refused" \
  "$(requests_of carol | python3 -c 'import json,sys
print(sorted({json.loads(l)["status"] for l in sys.stdin if "/apis/" not in json.loads(l)["path"] or "/apis/apps/" in json.loads(l)["path"]}))')" "[403]"
check "carol (no role) sees no GPU node: the role is what grants the view" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["gpuNodes"])' "$work/carol.json")" 0

harness_done
