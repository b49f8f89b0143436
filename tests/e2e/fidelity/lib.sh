# SPDX-License-Identifier: Apache-2.0
# Helpers for the fidelity cases: a fakekube per case, kubectl wrappers, checks, the verdict.
# Sourced by run.sh, which sets kubectl_bin, fakekube_bin and scenario.

passed=0
failed=0
gaps=0
fixed=0
failed_names=()

case_dir=
case_errors=0
case_gap=
fakekube_pid=

start_fakekube() {
  case_dir=$(mktemp -d "${TMPDIR:-/tmp}/fidelity-XXXXXX")
  "$fakekube_bin" --scenario "$scenario" --kubeconfig-out "$case_dir/kubeconfig" --user admin \
    --request-log "$case_dir/requests.jsonl" >"$case_dir/url" 2>"$case_dir/fakekube.err" &
  fakekube_pid=$!
  local i
  for i in $(seq 100); do
    [[ -s $case_dir/url ]] && return 0
    kill -0 "$fakekube_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "    fakekube did not start: $(cat "$case_dir/fakekube.err")"
  return 1
}

stop_fakekube() {
  if [[ -n $fakekube_pid ]]; then
    kill "$fakekube_pid" 2>/dev/null
    wait "$fakekube_pid" 2>/dev/null
    fakekube_pid=
  fi
  [[ -n $case_dir ]] && rm -rf "$case_dir"
  case_dir=
}
trap stop_fakekube EXIT

# kubectl as the scenario's admin; `as_viewer` prefixes a command with the viewer's token.
kc() {
  timeout 30 "$kubectl_bin" --kubeconfig "$case_dir/kubeconfig" --cache-dir "$case_dir/cache" \
    --request-timeout 20s "$@"
}
as_viewer() { kc --token fidelity-viewer-token "$@"; }

# The requests fakekube served so far, one JSON object per line.
requests() { cat "$case_dir/requests.jsonl"; }
clear_requests() { : >"$case_dir/requests.jsonl"; }

check() { # check <description> <actual> <expected>
  if [[ $2 == "$3" ]]; then return 0; fi
  echo "    FAIL $1"
  echo "         expected: $(printf %q "$3")"
  echo "         actual:   $(printf %q "$2")"
  case_errors=$((case_errors + 1))
}

check_contains() { # check_contains <description> <text> <needle>
  if [[ $2 == *"$3"* ]]; then return 0; fi
  echo "    FAIL $1: $(printf %q "$3") not in:"
  printf '%s\n' "$2" | head -20 | sed 's/^/         | /'
  case_errors=$((case_errors + 1))
}

check_not_contains() {
  if [[ $2 != *"$3"* ]]; then return 0; fi
  echo "    FAIL $1: unexpected $(printf %q "$3") in:"
  printf '%s\n' "$2" | head -20 | sed 's/^/         | /'
  case_errors=$((case_errors + 1))
}

check_status() { # check_status <description> <actual exit code> <expected>
  check "$1 (exit code)" "$2" "$3"
}

# Marks the running case as expected to fail because of an API-layer gap.
known_gap() { case_gap=$1; }

wait_for() { # wait_for <file> <needle> [seconds]
  local deadline=$((SECONDS + ${3:-10}))
  while ((SECONDS < deadline)); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

run_case() {
  local name=$1
  case_errors=0
  case_gap=
  local started=$SECONDS
  if ! declare -F "case_$name" >/dev/null; then
    echo "FAIL $name: no such case"
    failed=$((failed + 1)); failed_names+=("$name")
    return
  fi
  if start_fakekube; then
    "case_$name"
  else
    case_errors=1
  fi
  stop_fakekube
  local took=$((SECONDS - started))
  if ((case_errors == 0)); then
    if [[ -n $case_gap ]]; then
      echo "FIXED $name (${took}s) — passes despite known_gap: $case_gap"
      fixed=$((fixed + 1))
    else
      echo "ok   $name (${took}s)"
    fi
    passed=$((passed + 1))
  elif [[ -n $case_gap ]]; then
    echo "GAP  $name (${took}s) — known API-layer gap: $case_gap"
    gaps=$((gaps + 1))
  else
    echo "FAIL $name (${took}s)"
    failed=$((failed + 1)); failed_names+=("$name")
  fi
}

summary() {
  echo "fidelity: $passed passed, $failed failed, $gaps known gaps, $fixed fixed gaps"
  if ((failed > 0)); then
    echo "failed: ${failed_names[*]}"
    return 1
  fi
  return 0
}
