# SPDX-License-Identifier: Apache-2.0
# What the e2e scripts against a fakekube process share; source it, then:
#   harness_args "a b" "$@"      --a X --b Y become a=X b=Y; any other argument exits 2
#   harness_workdir NAME         a scratch dir in $work, removed (with fakekube and $apply_pid,
#                                $writer_pid if set) on exit
#   start_fakekube SCENARIO [ARG...]  fakekube (with ARGs) on a free port, admin kubeconfig in
#                                $work/kubeconfig, request log in $work/requests.jsonl (emptied); pid in $pid
#   stop_fakekube
#   check NAME ACTUAL EXPECTED   one line ok/FAIL; harness_done prints the tally and fails on any FAIL
# shellcheck shell=bash

harness_args() { # harness_args "NAME..." "$@": only --NAME VALUE for the NAMEs listed
  local names=" $1 "; shift
  while (($#)); do
    local name=${1#--}
    [[ $1 == --* && $# -ge 2 && $names == *" $name "* ]] || { echo "unknown argument $1" >&2; exit 2; }
    printf -v "${name//-/_}" '%s' "$2"
    shift 2
  done
}

pid= apply_pid= writer_pid= work=
harness_cleanup() {
  [[ -n $apply_pid ]] && kill -9 "$apply_pid" 2>/dev/null
  [[ -n $writer_pid ]] && kill "$writer_pid" 2>/dev/null
  [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [[ -n $work ]] && rm -rf "$work"
}
harness_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-$1-XXXXXX")
  trap harness_cleanup EXIT
}

start_fakekube() {
  local scenario_file=$1; shift
  rm -f "$work/url"
  : >"$work/requests.jsonl"
  "$fakekube" --scenario "$scenario_file" "$@" --kubeconfig-out "$work/kubeconfig" --user admin \
    --request-log "$work/requests.jsonl" >"$work/url" 2>"$work/fakekube.err" &
  pid=$!
  for _ in $(seq 200); do [[ -s $work/url ]] && break; sleep 0.05; done
  [[ -s $work/url ]] || { echo "fakekube did not start: $(cat "$work/fakekube.err")"; exit 1; }
}
stop_fakekube() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=; }

passed=0 failed=0
check() {
  if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
harness_done() {
  echo "$passed passed, $failed failed"
  ((failed == 0))
}

# slow_scenario IN OUT MS: IN's objects as a settings-form scenario with an admin user and every
# request answered after MS milliseconds (so a test can act while apply is mid-way).
slow_scenario() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys, yaml
objects = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
users = [{"name": "admin", "groups": ["system:masters"], "token": "admin-e2e-token"}]
json.dump({"users": users, "faults": {"latencyMs": int(sys.argv[3])}, "objects": objects}, open(sys.argv[2], "w"))
PY
}
