#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Baseline a of the benchmark: what an SRE types to gather the facts `diagnose` joins, with
# real kubectl against the same cluster (KUBECONFIG). Output is discarded; the runner times
# the whole script.   kubectl_workflow.sh KUBECTL
set -uo pipefail
k=$1
# Which pods are Pending, and why (scheduler, autoscaler).
"$k" get pods -A --field-selector=status.phase=Pending -o wide >/dev/null
"$k" get events -A --field-selector=reason=FailedScheduling >/dev/null
"$k" get events -A --field-selector=reason=NotTriggerScaleUp >/dev/null
# The nodes, their GPU labels, and what is allocated on the GPU nodes.
"$k" get nodes -o wide -L node.kubernetes.io/instance-type,nvidia.com/gpu.product,nvidia.com/gpu.count >/dev/null
"$k" describe nodes -l nvidia.com/gpu.present=true >/dev/null
# The device plugin: its DaemonSet, and the ConfigMaps (time-slicing config, autoscaler status).
"$k" get ds -A >/dev/null
"$k" -n kube-system get ds nvidia-device-plugin-daemonset -o yaml >/dev/null
"$k" get cm -A >/dev/null
"$k" -n kube-system get cm cluster-autoscaler-status -o yaml >/dev/null
