#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README quick start's demo: start fakekube (our in-memory Kubernetes API server) on the
# bundled EKS GPU incident and look at it with real kubectl. Run from the repository root
# after building into build/. Uses a temporary kubeconfig; ~/.kube/config is never touched.
#   FAKEKUBE=path/to/fakekube  KUBECTL=kubectl-binary  examples/demo.sh
set -euo pipefail

fakekube=${FAKEKUBE:-build/fakekube}
kubectl_bin=${KUBECTL:-kubectl}
scenario=tests/fixtures/scenarios/eks-gpu-incident.yaml

if [[ ! -x $fakekube ]]; then
  echo "demo.sh: $fakekube not found; build first: cmake -S . -B build -G Ninja && cmake --build build" >&2
  exit 2
fi
if ! command -v "$kubectl_bin" >/dev/null; then
  echo "demo.sh: $kubectl_bin not found on PATH (set KUBECTL=...)" >&2
  exit 2
fi

workdir=$(mktemp -d)
fakekube_pid=
cleanup() {
  if [[ -n $fakekube_pid ]]; then
    kill "$fakekube_pid" 2>/dev/null || true
    wait "$fakekube_pid" 2>/dev/null || true
  fi
  rm -rf "$workdir"
}
trap cleanup EXIT

"$fakekube" --scenario "$scenario" --kubeconfig-out "$workdir/kubeconfig" >"$workdir/url" 2>"$workdir/fakekube.log" &
fakekube_pid=$!
for _ in $(seq 100); do
  [[ -s $workdir/url ]] && break
  if ! kill -0 "$fakekube_pid" 2>/dev/null; then
    echo "demo.sh: fakekube exited:" >&2
    cat "$workdir/fakekube.log" >&2
    exit 1
  fi
  sleep 0.1
done
[[ -s $workdir/url ]] || { echo "demo.sh: fakekube did not start within 10 s" >&2; exit 1; }

export KUBECONFIG=$workdir/kubeconfig
k() {
  echo
  echo "\$ kubectl $*"
  "$kubectl_bin" --cache-dir "$workdir/cache" "$@"
}

echo "fakekube is serving $scenario at $(cat "$workdir/url")"
k get nodes -L node.kubernetes.io/instance-type -L eks.amazonaws.com/nodegroup
k get pods -A --field-selector=status.phase=Pending
events='custom-columns=NAMESPACE:.metadata.namespace,POD:.involvedObject.name,FROM:.reportingComponent,MESSAGE:.message'
k get events -A --field-selector=reason=FailedScheduling -o "$events"
k get events -A --field-selector=reason=NotTriggerScaleUp -o "$events"
