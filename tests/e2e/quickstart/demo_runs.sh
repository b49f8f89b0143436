#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's demo (examples/demo.sh) on the built binaries: with kubectl it shows kubectl's
# view of fakekube and the live diagnosis through kubectl's plugin mechanism; without kubectl it
# says so in one line and still diagnoses live. Both exit 0 and both diagnoses find GS300.
#   demo_runs.sh --source DIR --gpuslice BIN --fakekube BIN
set -uo pipefail
# shellcheck source=../lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.sh"
harness_args "source gpuslice fakekube" "$@"
harness_workdir demo
count() { grep -c -- "$1" "$2"; }

cd "$source" || exit 2
run_demo() { # run_demo OUT [ENV...]
  local out=$1; shift
  env FAKEKUBE="$fakekube" GPUSLICE="$gpuslice" "$@" examples/demo.sh >"$out" 2>&1
}

if command -v kubectl >/dev/null; then
  run_demo "$work/with" ; check "demo with kubectl exits 0" "$?" 0
  check "offline and live diagnoses each find GS300" "$(count 'GS300 time-slicing-disabled' "$work/with")" 2
  check "kubectl lists the Pending pods" "$(grep -c 'Pending' "$work/with" | awk '$1 >= 4 {print "yes"}')" yes
  check "the live diagnosis runs as kubectl's plugin" "$(count '^\$ kubectl gpuslice diagnose$' "$work/with")" 1
  check "no skip line when kubectl is there" "$(count 'skipping the kubectl part' "$work/with")" 0
else
  echo "skip demo with kubectl: none on PATH"
fi

run_demo "$work/without" KUBECTL=kubectl-not-installed-here; check "demo without kubectl exits 0" "$?" 0
check "one line says why the kubectl part is skipped" \
  "$(grep 'skipping the kubectl part' "$work/without")" \
  "demo.sh: kubectl-not-installed-here is not on PATH: skipping the kubectl part (packaging/install-deps.sh installs it, or set KUBECTL=...)"
check "offline and live diagnoses each find GS300 without kubectl" \
  "$(count 'GS300 time-slicing-disabled' "$work/without")" 2
check "without kubectl no kubectl get is shown" "$(count "^\$ kubectl get" "$work/without")" 0

((failed == 0)) || { echo "--- with kubectl"; cat "$work/with" 2>/dev/null; echo "--- without"; cat "$work/without"; }
harness_done
