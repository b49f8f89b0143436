#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `apply --installer helm` against fakekube on the runbook's incident (a Helm-installed plugin,
# replaced with --strategy replace so the plan ends with a helm install).
#
# There is no helm on these machines, and Debian (all CI can install) does not package it. So
# a stand-in `helm`, put first on PATH, records its argv and exits as told. What this proves:
# the exact command we run (the corrected chart `nvidia-device-plugin` with config.name and
# config.default — not the runbook's `config.map` — the pinned version, namespace, release, and
# the cluster we talk to), that a failing helm ends with exit 4 and the undo command, and that
# a missing helm is refused before any request. It does NOT prove that real helm accepts the
# command or that the chart renders: nothing here runs the chart.
#   helm_installer.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail
source "$(dirname "$0")/../lib/harness.sh"
harness_args "gpuslice fakekube scenario" "$@"
command -v kubectl >/dev/null && command -v jq >/dev/null || { echo "kubectl and jq are needed"; exit 77; }
harness_workdir helm-installer

python3 - "$scenario" "$work/scenario.json" <<'PY'
import json, sys, yaml
objects = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
users = [{"name": "admin", "groups": ["system:masters"], "token": "admin-e2e-token"}]
json.dump({"users": users, "objects": objects}, open(sys.argv[2], "w"))
PY

# The stand-in: appends its arguments (one line, space-joined) to $HELM_ARGV_LOG, exits $HELM_EXIT.
mkdir -p "$work/bin" "$work/nohelm"
cat >"$work/bin/helm" <<'SH'
#!/bin/sh
echo "$*" >>"$HELM_ARGV_LOG"
exit "${HELM_EXIT:-0}"
SH
chmod +x "$work/bin/helm"

gs() { NO_COLOR=1 HOME=$work/home KUBECONFIG=$work/kubeconfig "$gpuslice" "$@"; }
mutations() { jq -s '[.[] | select(.method != "GET" and (.path | contains("selfsubjectaccessreviews") | not))] | length' "$work/requests.jsonl"; }
apply_helm=(apply --replicas 4 --yes --no-wait --installer helm --strategy replace)

start_fakekube "$work/scenario.json"
context=$(KUBECONFIG=$work/kubeconfig kubectl config current-context)

# 1. No helm on PATH: refused before anything is sent.
: >"$work/requests.jsonl"
PATH=$work/nohelm gs "${apply_helm[@]}" >"$work/nohelm.out" 2>"$work/nohelm.err"; code=$?
check "no helm on PATH: exit 3" "$code" 3
check "no helm on PATH: the message says so" "$(grep -c 'no helm on PATH; nothing was changed' "$work/nohelm.err")" 1
check "no helm on PATH: no request sent" "$(wc -l <"$work/requests.jsonl" | tr -d ' ')" 0

# 2. helm succeeds: the exact corrected command, after the API changes, against our context.
: >"$work/requests.jsonl"
: >"$work/argv.log"
PATH=$work/bin:$PATH HELM_ARGV_LOG=$work/argv.log gs --context "$context" "${apply_helm[@]}" \
  >"$work/ok.out" 2>"$work/ok.err"; code=$?
check "helm exits 0: apply exits 0" "$code" 0
[[ $code == 0 ]] || cat "$work/ok.out" "$work/ok.err"
check "helm ran once" "$(wc -l <"$work/argv.log" | tr -d ' ')" 1
check "the corrected helm command" "$(cat "$work/argv.log")" \
  "upgrade --install nvdp nvidia-device-plugin --repo https://nvidia.github.io/k8s-device-plugin --version 0.20.0 --namespace nvidia-device-plugin --set config.name=time-slicing-config --set config.default=any --kube-context $context"
check "never the runbook's config.map" "$(grep -c 'config.map' "$work/argv.log")" 0
check "the old release was removed through the API first" \
  "$(jq -s '[.[] | select(.method == "DELETE" and (.path | contains("sh.helm.release.v1.nvdp")))] | length' "$work/requests.jsonl")" 1
gs undo --yes >"$work/undo1.txt" 2>&1; code=$?
check "undo after the helm run exits 0" "$code" 0

# 3. The Helm plugin re-pointed in place (no --strategy): the plan shows no helm run, so none happens.
: >"$work/argv.log"
PATH=$work/bin:$PATH HELM_ARGV_LOG=$work/argv.log gs apply --replicas 4 --yes --no-wait --installer helm \
  >"$work/inplace.out" 2>"$work/inplace.err"; code=$?
check "re-pointed in place: apply exits 0" "$code" 0
check "re-pointed in place: helm is not run" "$(wc -l <"$work/argv.log" | tr -d ' ')" 0
gs undo --yes >"$work/undo-inplace.txt" 2>&1; code=$?
check "undo after the in-place run exits 0" "$code" 0

# 4. helm fails: exit 4 and the undo command; the API changes stay journaled and undo restores them.
: >"$work/requests.jsonl"
: >"$work/argv.log"
PATH=$work/bin:$PATH HELM_ARGV_LOG=$work/argv.log HELM_EXIT=1 gs "${apply_helm[@]}" \
  >"$work/fail.out" 2>"$work/fail.err"; code=$?
check "helm exits 1: apply exits 4" "$code" 4
check "helm failure is named" "$(grep -c 'helm upgrade --install failed (exit 1)' "$work/fail.err")" 1
check "the undo command is printed" "$(grep -c 'undo --journal' "$work/fail.err")" 1
check "the API changes were made before helm" "$([[ $(mutations) -gt 0 ]] && echo yes)" yes
gs undo --yes >"$work/undo2.txt" 2>&1; code=$?
check "undo after the failed helm run exits 0" "$code" 0
check "the Helm release Secret is back" \
  "$(KUBECONFIG=$work/kubeconfig kubectl -n nvidia-device-plugin get secrets -o name 2>/dev/null | grep -c 'sh.helm.release.v1.nvdp')" 1
stop_fakekube

harness_done
