#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README quick start's demo: diagnose the bundled EKS GPU incident offline, then start
# fakekube (our in-memory Kubernetes API server) on the same incident, look at it with real
# kubectl, and run `kubectl gpuslice diagnose` live against it, as kubectl's plugin. Without
# kubectl on PATH it says so in one line and runs the live diagnosis with the binary itself.
# Run from the repository root after building into build/ (`cmake --build build --target demo`).
# Uses a temporary kubeconfig; ~/.kube/config is never touched.
#   FAKEKUBE=path/to/fakekube  KUBECTL=kubectl-binary  examples/demo.sh
set -euo pipefail

fakekube=${FAKEKUBE:-build/fakekube}
gpuslice=${GPUSLICE:-build/kubectl-gpuslice}
kubectl_bin=${KUBECTL:-kubectl}
scenario=tests/fixtures/scenarios/eks-gpu-incident.yaml

if [[ ! -x $fakekube ]]; then
  echo "demo.sh: $fakekube not found; build first: cmake -S . -B build -G Ninja && cmake --build build --target demo" >&2
  exit 2
fi
have_kubectl=yes
command -v "$kubectl_bin" >/dev/null || have_kubectl=

if [[ ! -x $gpuslice ]]; then
  echo "demo.sh: $gpuslice not found; build first: cmake -S . -B build -G Ninja && cmake --build build --target demo" >&2
  exit 2
fi

# diagnose exits 1 when it finds errors, as it should here: that is the demo working.
diagnose() { # diagnose SHOWN-COMMAND COMMAND...
  echo
  echo "\$ $1"
  shift
  local code=0
  "$@" || code=$?
  if ((code > 1)); then
    echo "demo.sh: diagnose failed (exit $code)" >&2
    exit "$code"
  fi
}

echo "=== Offline: the incident snapshot in examples/"
diagnose "kubectl gpuslice diagnose --from-file examples/eks-gpu-incident.json" \
  "$gpuslice" diagnose --from-file examples/eks-gpu-incident.json

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
echo "fakekube is serving $scenario at $(cat "$workdir/url")"
if [[ -z $have_kubectl ]]; then
  echo "demo.sh: $kubectl_bin is not on PATH: skipping the kubectl part (packaging/install-deps.sh installs it, or set KUBECTL=...)"
  echo
  echo "=== Live: kubectl-gpuslice against fakekube"
  diagnose "kubectl-gpuslice diagnose" "$gpuslice" diagnose
  exit 0
fi

k() {
  echo
  echo "\$ kubectl $*"
  "$kubectl_bin" --cache-dir "$workdir/cache" "$@"
}

k get nodes -L node.kubernetes.io/instance-type -L eks.amazonaws.com/nodegroup
k get pods -A --field-selector=status.phase=Pending
events='custom-columns=NAMESPACE:.metadata.namespace,POD:.involvedObject.name,FROM:.reportingComponent,MESSAGE:.message'
k get events -A --field-selector=reason=FailedScheduling -o "$events"
k get events -A --field-selector=reason=NotTriggerScaleUp -o "$events"

# The same diagnosis live, through kubectl's plugin mechanism (kubectl-gpuslice on PATH).
mkdir -p "$workdir/bin"
ln -s "$(cd "$(dirname "$gpuslice")" && pwd)/$(basename "$gpuslice")" "$workdir/bin/kubectl-gpuslice"
echo
echo "=== Live: kubectl gpuslice against fakekube"
PATH=$workdir/bin:$PATH diagnose "kubectl gpuslice diagnose" "$kubectl_bin" gpuslice diagnose
