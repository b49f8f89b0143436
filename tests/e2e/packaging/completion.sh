#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Shell completion end to end: bash sourcing `completion bash` (complete -p, COMP_WORDS and
# COMPREPLY as bash's programmable completion sets them), kubectl_complete-gpuslice as kubectl
# 1.26+ runs it, and real `kubectl __complete gpuslice …` with the plugin on PATH. Contexts come
# from the kubeconfig, namespaces from a fakekube cluster; a dead server
# completes nothing, quickly and silently.
#   completion.sh --gpuslice BIN --fakekube BIN --scenario FILE
set -uo pipefail
while (($#)); do
  case $1 in
    --gpuslice) gpuslice=$2; shift 2 ;;
    --fakekube) fakekube=$2; shift 2 ;;
    --scenario) scenario=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
bindir=$(cd "$(dirname "$gpuslice")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-completion-XXXXXX")
pid=
cleanup() { [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$fakekube" --scenario "$scenario" --kubeconfig-out "$work/kubeconfig" >"$work/url" 2>"$work/fakekube.err" &
pid=$!
for _ in $(seq 200); do [[ -s $work/url ]] && break; sleep 0.05; done
[[ -s $work/url ]] || { echo "fakekube did not start: $(cat "$work/fakekube.err")"; exit 1; }
export KUBECONFIG=$work/kubeconfig PATH=$bindir:$PATH
"$gpuslice" completion bash >"$work/completion.bash"

passed=0 failed=0
check() { if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
  failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi; }
# bash_complete WORD...: COMPREPLY after the completion function runs on the words, the last
# one being completed, one candidate a line.
bash_complete() {
  bash --norc --noprofile -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    spec=$(complete -p kubectl-gpuslice); fn=${spec#*-F }; fn=${fn%% *}
    "$fn" kubectl-gpuslice "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$work/completion.bash" "$@"
}

check "complete -p shows the function registered for kubectl-gpuslice" \
  "$(bash --norc -c 'source "$1"; complete -p kubectl-gpuslice' _ "$work/completion.bash")" \
  "complete -F _kubectl_gpuslice_complete kubectl-gpuslice"
check "subcommand prefix" "$(bash_complete kubectl-gpuslice dia)" diagnose
check "every subcommand, as the CLI defines them" "$(bash_complete kubectl-gpuslice "" | sort | tr '\n' ' ')" \
  "$("$gpuslice" __complete "" | grep -v '^:' | cut -f1 | sort | tr '\n' ' ')"
check "a subcommand's flag" "$(bash_complete kubectl-gpuslice diagnose --fail)" --fail-on
check "a flag's fixed values" "$(bash_complete kubectl-gpuslice diagnose -o ma)" markdown
check "contexts from the kubeconfig" "$(bash_complete kubectl-gpuslice status --context "")" \
  "$(kubectl config get-contexts -o name)"
check "namespaces from the cluster" "$(bash_complete kubectl-gpuslice status -n ml)" ml
check "global flags before the subcommand name the cluster" \
  "$(bash_complete kubectl-gpuslice --kubeconfig "$work/kubeconfig" status -n kube-s)" kube-system
check "explain completes finding codes" "$(bash_complete kubectl-gpuslice explain GS70 | tr '\n' ' ')" "GS700 GS701 "
touch "$work/incident-snapshot.json"
check "file flags fall back to file names (compgen -f)" \
  "$(cd "$work" && bash_complete kubectl-gpuslice diagnose --from-file incident-)" incident-snapshot.json

# kubectl's plugin completion protocol.
check "kubectl_complete-gpuslice: candidates then :directive" \
  "$(kubectl_complete-gpuslice sta | cut -f1 | tr '\n' ' ')" "status :4 "
check "kubectl_complete-gpuslice: every namespace of the cluster, then the directive" \
  "$(kubectl_complete-gpuslice status -n "" | grep -c .)" \
  "$(($(kubectl get namespaces -o name | wc -l) + 1))"
start=$(date +%s)
out=$(kubectl_complete-gpuslice --server https://127.0.0.1:9 status -n "" 2>"$work/dead.err")
check "a dead server: nothing but the directive" "$out" ":4"
check "a dead server: silent" "$(cat "$work/dead.err")" ""
check "a dead server: quick (< 5 s)" "$(( $(date +%s) - start < 5 ))" 1

# Real kubectl (1.26+) dispatching to the plugin's completion executable. A few tries: on a
# loaded machine a sanitizer build's first run was seen to give kubectl no answer in time.
dispatched=no
for _ in 1 2 3 4 5; do
  kubectl __complete gpuslice dia 2>/dev/null | grep -q '^diagnose' && { dispatched=yes; break; }
  sleep 1
done
if [[ $dispatched == yes ]]; then
  check "kubectl __complete gpuslice dia" "$(kubectl __complete gpuslice dia 2>/dev/null | cut -f1 | head -1)" diagnose
  check "kubectl __complete gpuslice status -n (cluster namespaces)" \
    "$(kubectl __complete gpuslice status -n m 2>/dev/null | cut -f1 | head -1)" ml
else
  check "kubectl __complete runs kubectl_complete-gpuslice" "$(kubectl __complete gpuslice dia 2>&1 | head -3)" "diagnose…"
fi

echo "$passed passed, $failed failed"
((failed == 0))
