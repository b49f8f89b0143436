#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The runbook's incident under `fakekube --simulate`, driven by real kubectl:
# - a pending GPU pod's PodScheduled message is the real scheduler's, byte for byte;
# - the autoscaler's NotTriggerScaleUp names 3 unmatched and 6 maxed-out node groups;
# - creating a time-slicing ConfigMap (replicas 4) and pointing the plugin DaemonSet at it
#   makes nodes advertise 4, the DaemonSet and Deployments roll out, every GPU pod runs;
# - `kubectl taint` makes a new non-tolerating pod Pending with the taint named;
# - `kubectl label` and a toleration patch land, and the patched Deployment rolls out.
# Run with kubectl 1.30 (JSON bodies) and 1.33 (protobuf bodies for `create configmap`).
#   sim_incident.sh --kubectl BIN --fakekube BIN --scenario FILE
set -uo pipefail

while (($#)); do
  case $1 in
    --kubectl) kubectl_bin=$2; shift 2 ;;
    --fakekube) fakekube=$2; shift 2 ;;
    --scenario) scenario=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $kubectl_bin ]] || { echo "skip: no $kubectl_bin"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/fakekube-sim-XXXXXX")
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$fakekube" --scenario "$scenario" --simulate=50 --kubeconfig-out "$work/kubeconfig" \
  >"$work/url" 2>"$work/fakekube.err" &
pid=$!
for _ in $(seq 200); do [[ -s $work/url ]] && break; sleep 0.05; done
[[ -s $work/url ]] || { echo "fakekube did not start: $(cat "$work/fakekube.err")"; exit 1; }

passed=0 failed=0
check() { # check NAME ACTUAL EXPECTED
  if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
k() { KUBECONFIG=$work/kubeconfig "$kubectl_bin" "$@"; }
# eventually NAME EXPECTED CMD...: retries CMD for up to 20 s until it prints EXPECTED.
eventually() {
  local name=$1 expected=$2 actual=""
  shift 2
  for _ in $(seq 100); do
    actual=$("$@" 2>&1)
    [[ $actual == "$expected" ]] && break
    sleep 0.2
  done
  check "$name" "$actual" "$expected"
}

pending=$(k get pods -n ml -l app.kubernetes.io/name=embeddings-worker -o name | head -1)
scheduled_message() { k get -n ml "$pending" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
eventually "FailedScheduling wording of kubernetes 1.30, byte for byte" \
  "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't match Pod's node affinity/selector. preemption: 0/9 nodes are available: 3 No preemption victims found for incoming pod, 6 Preemption is not helpful for scheduling." \
  scheduled_message
ca_message() {
  k get events -n ml --field-selector "reason=NotTriggerScaleUp,involvedObject.name=${pending#pod/}" \
    -o jsonpath='{range .items[?(@.source.component=="cluster-autoscaler")]}{.message}{"\n"}{end}' | sort -u | tail -1
}
eventually "NotTriggerScaleUp for the scenario's node groups" \
  "pod didn't trigger scale-up: 3 node(s) didn't match Pod's node affinity/selector, 6 max node group size reached" \
  ca_message
scheduler_events() {
  k get events -n ml --field-selector "reason=FailedScheduling,involvedObject.name=${pending#pod/}" \
    -o jsonpath='{range .items[?(@.reportingComponent=="default-scheduler")]}{.type}{"\n"}{end}' | sort -u
}
eventually "FailedScheduling events are Warnings from default-scheduler" "Warning" scheduler_events

# The runbook's fix, by hand: a time-slicing config and the plugin reading it.
cat >"$work/config.yaml" <<'YAML'
version: v1
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 4
YAML
k create configmap time-slicing-config -n nvidia-device-plugin --from-file=any="$work/config.yaml" >/dev/null
k patch daemonset nvdp-nvidia-device-plugin -n nvidia-device-plugin --type json -p '[
  {"op":"add","path":"/spec/template/spec/volumes/-","value":{"name":"time-slicing","configMap":{"name":"time-slicing-config"}}},
  {"op":"add","path":"/spec/template/spec/containers/0/volumeMounts/-","value":{"name":"time-slicing","mountPath":"/etc/nvidia/time-slicing"}},
  {"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"CONFIG_FILE","value":"/etc/nvidia/time-slicing/any"}}]' >/dev/null
k rollout status daemonset/nvdp-nvidia-device-plugin -n nvidia-device-plugin --timeout=60s >"$work/ds-rollout.txt" 2>&1
check "kubectl rollout status on the plugin DaemonSet succeeds" "$? $(tail -1 "$work/ds-rollout.txt")" \
  '0 daemon set "nvdp-nvidia-device-plugin" successfully rolled out'
gpu_allocatable() { k get nodes -l k8s.amazonaws.com/accelerator -o jsonpath='{range .items[*]}{.status.allocatable.nvidia\.com/gpu}{" "}{end}'; }
eventually "GPU nodes advertise 4 time-sliced GPUs" "4 4 4 " gpu_allocatable
for deployment in gpu-inference embeddings-worker; do
  k rollout status "deployment/$deployment" -n ml --timeout=60s >"$work/rollout.txt" 2>&1
  check "kubectl rollout status deployment/$deployment succeeds" "$? $(tail -1 "$work/rollout.txt")" \
    "0 deployment \"$deployment\" successfully rolled out"
done
not_running() { k get pods -A --field-selector=status.phase!=Running -o name; }
eventually "every pod is bound and Running" "" not_running

# A taint keeps out what does not tolerate it.
node=$(k get nodes -l k8s.amazonaws.com/accelerator -o jsonpath='{.items[0].metadata.name}')
k taint node "$node" dedicated=training:NoSchedule >/dev/null
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: taint-probe, namespace: default}
spec:
  nodeSelector: {kubernetes.io/hostname: $node}
  containers: [{name: c, image: busybox}]
YAML
probe_message() { k get pod taint-probe -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
eventually "a new non-tolerating pod is Pending with the taint named" \
  "0/9 nodes are available: 1 node(s) had untolerated taint {dedicated: training}, 8 node(s) didn't match Pod's node affinity/selector. preemption: 0/9 nodes are available: 9 Preemption is not helpful for scheduling." \
  probe_message
check "the pod stays Pending" "$(k get pod taint-probe -o jsonpath='{.status.phase}')" Pending

# The runbook's last steps: label the node, let a Deployment tolerate the taint.
k label node "$node" nvidia.com/sharing=time-slicing >/dev/null
check "kubectl label is stored" "$(k get node "$node" -o jsonpath='{.metadata.labels.nvidia\.com/sharing}')" time-slicing
k patch deployment gpu-inference -n ml --type strategic \
  -p '{"spec":{"template":{"spec":{"tolerations":[{"key":"dedicated","operator":"Equal","value":"training","effect":"NoSchedule"}]}}}}' >/dev/null
check "the toleration patch is stored" \
  "$(k get deployment gpu-inference -n ml -o jsonpath='{.spec.template.spec.tolerations[?(@.key=="dedicated")].value}')" training
k rollout status deployment/gpu-inference -n ml --timeout=60s >"$work/rollout.txt" 2>&1
check "the tolerating Deployment rolls out" "$? $(tail -1 "$work/rollout.txt")" \
  '0 deployment "gpu-inference" successfully rolled out'

echo "$passed passed, $failed failed"
((failed == 0))
