#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fidelity suite: real kubectl against fakekube. Every case starts its own fakekube on an
# ephemeral port with the fidelity scenario, runs kubectl commands and checks the resulting
# state through a second read (and, where it matters, through fakekube's request log).
#
#   run.sh --kubectl PATH --fakekube PATH [--scenario FILE] [CASE...]
#
# Exit 0 when every case passed (or is a marked known gap), 1 on any failure, 77 (CTest's
# skip code) when the kubectl binary is missing.
# A case known to fail because of a gap in fakekube's API layer is marked with known_gap
# "<reason>" before its checks: it still runs, and its failure is reported as GAP with the
# reason instead of failing the suite; if it passes it is reported as FIXED so the mark can go.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kubectl_bin=
fakekube_bin=
scenario=$here/scenario.yaml
cases=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --kubectl) kubectl_bin=$2; shift 2 ;;
    --fakekube) fakekube_bin=$2; shift 2 ;;
    --scenario) scenario=$2; shift 2 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) cases+=("$1"); shift ;;
  esac
done
if [[ -z $kubectl_bin || ! -x $kubectl_bin ]]; then
  echo "SKIP: kubectl binary '$kubectl_bin' not found"
  exit 77
fi
[[ -x $fakekube_bin ]] || { echo "run.sh: --fakekube '$fakekube_bin' is not executable" >&2; exit 2; }

kubectl_minor=$("$kubectl_bin" version --client -o json 2>/dev/null | jq -r '.clientVersion.minor' | tr -dc 0-9)
kubectl_minor=${kubectl_minor:-0}
source "$here/lib.sh"
source "$here/cases.sh"

if [[ ${#cases[@]} -eq 0 ]]; then
  mapfile -t cases < <(declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//')
fi
echo "fidelity: $("$kubectl_bin" version --client 2>/dev/null | head -1) against fakekube ($scenario)"
for name in "${cases[@]}"; do
  run_case "$name"
done
summary
