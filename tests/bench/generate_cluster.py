#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a fakekube scenario (a kubectl List, compact JSON) of an EKS cluster in a GPU incident,
at benchmark scale: S, M or L, deterministic from --seed.

    generate_cluster.py --size L --seed 7 --out /tmp/bench/L.json

L is the Kubernetes scalability limit (5,000 nodes, 150,000 pods) with 500 GPU nodes carrying
15,000 pods, 2,000 Pending GPU pods, 100,000 events and 200 GPU Deployments; M is a tenth of it,
S a hundredth. Objects are as large as real ones (pods 3-10 KB: containers, env, volumes,
probes, status, managedFields) so that bytes, not only counts, are realistic.
"""
import argparse
import hashlib
import json
import random
import sys

SCALE = {"S": 0.01, "M": 0.1, "L": 1.0}
L_NODES, L_GPU_NODES, L_PODS, L_GPU_NODE_PODS = 5000, 500, 150_000, 15_000
L_PENDING_GPU, L_PENDING_CPU, L_EVENTS, L_GPU_DEPLOYMENTS = 2000, 1000, 100_000, 200
REGION = "us-west-2"
ZONES = ["us-west-2a", "us-west-2b", "us-west-2c"]
K8S = "v1.30.4-eks-a737599"
T_NODES = "2026-11-30T08:14:05Z"
T_APPS = "2026-12-02T09:41:12Z"
T_INCIDENT = "2026-12-02T14:02:31Z"
T_NOW = "2026-12-02T14:05:48Z"
# instance type -> (GPUs, GFD product, memory MiB, accelerator label); the incident's shapes.
GPU_TYPES = [("g4dn.xlarge", 1, "Tesla-T4", 15360, "nvidia-tesla-t4"),
             ("g4dn.12xlarge", 4, "Tesla-T4", 15360, "nvidia-tesla-t4"),
             ("g5.xlarge", 1, "NVIDIA-A10G", 23028, "nvidia-a10g"),
             ("g5.12xlarge", 4, "NVIDIA-A10G", 23028, "nvidia-a10g"),
             ("p3.2xlarge", 1, "Tesla-V100-SXM2-16GB", 16384, "nvidia-tesla-v100"),
             ("p3.8xlarge", 4, "Tesla-V100-SXM2-16GB", 16384, "nvidia-tesla-v100")]
CPU_TYPES = [("m5.2xlarge", "8", "32386616Ki", "58"), ("m5.4xlarge", "16", "65027820Ki", "234"),
             ("c5.4xlarge", "16", "32329276Ki", "234"), ("r5.2xlarge", "8", "65027820Ki", "58")]
IMAGES = ["ml/triton-inference:24.08-py3", "ml/embeddings-worker:3.2.1", "ml/trainer:2.4.0-cuda12.4",
          "web/api-gateway:1.19.3", "web/checkout:4.2.0", "data/kafka-consumer:2.8.1",
          "data/spark-executor:3.5.1", "platform/otel-collector:0.108.0"]
DUMPS = json.JSONEncoder(separators=(",", ":")).encode


class Ids:
    """Deterministic uids and hashes: a function of the seed and the name, never of order."""

    def __init__(self, seed):
        self.seed = str(seed)

    def hex(self, n, *parts):
        return hashlib.blake2b("/".join((self.seed,) + parts).encode(), digest_size=32).hexdigest()[:n]

    def uid(self, *parts):
        h = self.hex(32, *parts)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def suffix(self, n, *parts):
        alphabet = "bcdfghjklmnpqrstvwxz2456789"
        return "".join(alphabet[int(c, 16) % 27] for c in self.hex(n, *parts))


def managed_fields(manager, operation, time, fields, subresource=None):
    entry = {"manager": manager, "operation": operation, "apiVersion": "v1", "time": time,
             "fieldsType": "FieldsV1", "fieldsV1": fields}
    if subresource:
        entry["subresource"] = subresource
    return entry


def node(ids, rng, index, gpu_type=None):
    zone = ZONES[index % 3]
    ip = f"10.{16 + index // 65000}.{(index // 250) % 256}.{index % 250 + 2}"
    name = f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal"
    labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
              "topology.kubernetes.io/region": REGION, "topology.kubernetes.io/zone": zone,
              "eks.amazonaws.com/capacityType": "ON_DEMAND",
              "topology.k8s.aws/zone-id": "usw2-az" + zone[-1].replace("a", "1").replace("b", "2").replace("c", "3")}
    taints = []
    if gpu_type:
        itype, gpus, product, memory, accel = gpu_type
        group = f"gpu-{itype.split('.')[0]}-{zone[-1]}"
        labels.update({"k8s.amazonaws.com/accelerator": accel, "nvidia.com/gpu.present": "true",
                       "nvidia.com/gpu.product": product, "nvidia.com/gpu.count": str(gpus),
                       "nvidia.com/gpu.memory": str(memory), "nvidia.com/gpu.family": "turing",
                       "nvidia.com/cuda.driver.major": "550", "nvidia.com/gpu.replicas": "1"})
        if rng.random() < 0.9:  # a tenth lack the taint (GS501)
            taints.append({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"})
        cpu, mem, pods = ("4", "15896988Ki", "29") if gpus == 1 else ("48", "195784292Ki", "234")
    else:
        itype, cpu, mem, pods = CPU_TYPES[index % len(CPU_TYPES)]
        group = f"general-{itype.split('.')[0]}-{zone[-1]}"
    labels.update({"node.kubernetes.io/instance-type": itype, "beta.kubernetes.io/instance-type": itype,
                   "eks.amazonaws.com/nodegroup": group,
                   "eks.amazonaws.com/nodegroup-image": "ami-0" + ids.hex(16, group)})
    capacity = {"cpu": cpu, "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                "memory": mem, "pods": pods}
    allocatable = dict(capacity, cpu=f"{int(cpu) * 1000 - 80}m", **{"ephemeral-storage": "95551679124"})
    if gpu_type:
        capacity["nvidia.com/gpu"] = allocatable["nvidia.com/gpu"] = str(gpu_type[1])
    conditions = [{"type": t, "status": "True" if t == "Ready" else "False", "lastHeartbeatTime": T_NOW,
                   "lastTransitionTime": T_NODES, "reason": r, "message": m} for t, r, m in [
        ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "KubeletReady", "kubelet is posting ready status")]]
    spec = {"providerID": f"aws:///{zone}/i-0{ids.hex(16, name)}"}
    if taints:
        spec["taints"] = taints
    images = [{"names": [f"123456789012.dkr.ecr.{REGION}.amazonaws.com/{img}"], "sizeBytes": 1000000 + i * 7919}
              for i, img in enumerate(IMAGES[:5])]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": name, "uid": ids.uid("node", name), "resourceVersion": "1", "creationTimestamp": T_NODES,
        "labels": labels,
        "annotations": {"alpha.kubernetes.io/provided-node-ip": ip, "node.alpha.kubernetes.io/ttl": "0",
                        "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
        "managedFields": [managed_fields("kubelet", "Update", T_NODES, {"f:metadata": {"f:labels": {
            f"f:{k}": {} for k in list(labels)[:8]}}}),
            managed_fields("kubelet", "Update", T_NOW, {"f:status": {"f:conditions": {}, "f:images": {}}}, "status")]},
        "spec": spec,
        "status": {"addresses": [{"type": "InternalIP", "address": ip}, {"type": "InternalDNS", "address": name},
                                 {"type": "Hostname", "address": name}],
                   "allocatable": allocatable, "capacity": capacity, "conditions": conditions,
                   "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}, "images": images,
                   "nodeInfo": {"architecture": "amd64", "bootID": ids.uid("boot", name),
                                "containerRuntimeVersion": "containerd://1.7.22",
                                "kernelVersion": "6.1.112-124.190.amzn2023.x86_64", "kubeProxyVersion": K8S,
                                "kubeletVersion": K8S, "machineID": ids.hex(32, name, "m"),
                                "operatingSystem": "linux", "osImage": "Amazon Linux 2023.6.20241031",
                                "systemUUID": ids.uid("sys", name)}}}


def container(ids, rng, name, image, requests, limits, gpu=False):
    env = [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
           {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
           {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"},
           {"name": "LOG_LEVEL", "value": rng.choice(["info", "debug", "warn"])},
           {"name": "AWS_REGION", "value": REGION},
           {"name": "AWS_STS_REGIONAL_ENDPOINTS", "value": "regional"},
           {"name": "AWS_ROLE_ARN", "value": f"arn:aws:iam::123456789012:role/{name}-irsa"},
           {"name": "AWS_WEB_IDENTITY_TOKEN_FILE", "value": "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"}]
    if gpu:
        env += [{"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "compute,utility"},
                {"name": "CUDA_MODULE_LOADING", "value": "LAZY"}]
    probe = {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "initialDelaySeconds": 10,
             "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
    if "." not in image.split("/")[0]:  # our own images live in the account's ECR
        image = f"123456789012.dkr.ecr.{REGION}.amazonaws.com/{image}"
    return {"name": name, "image": image,
            "args": ["--config=/etc/app/config.yaml", f"--listen=:{8080}", "--metrics-port=9090"],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                      {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
            "env": env, "resources": {"requests": requests, "limits": limits},
            "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": True},
                             {"name": "kube-api-access-" + ids.suffix(5, name, "t"),
                              "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True},
                             {"name": "aws-iam-token", "mountPath": "/var/run/secrets/eks.amazonaws.com/serviceaccount",
                              "readOnly": True}],
            "livenessProbe": probe, "readinessProbe": dict(probe, httpGet=dict(probe["httpGet"], path="/ready")),
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"}


def pod_volumes(ids, name, config):
    token = "kube-api-access-" + ids.suffix(5, name, "t")
    return [{"name": "aws-iam-token", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {
                "audience": "sts.amazonaws.com", "expirationSeconds": 86400, "path": "token"}}]}},
            {"name": "config", "configMap": {"name": config, "defaultMode": 420}},
            {"name": token, "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {
                    "apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}]


DEFAULT_TOLERATIONS = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                        "tolerationSeconds": 300},
                       {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                        "tolerationSeconds": 300}]
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def pod(ids, rng, w, index, node_name=None, host_ip=None, phase="Running", message=None):
    """One replica of workload `w` (a dict made by workload()), on node_name or Pending."""
    daemon = w["kind"] == "DaemonSet"
    prefix = w["name"] if daemon else f"{w['name']}-{w['hash']}"
    name = f"{prefix}-{ids.suffix(5, w['name'], str(index))}"
    created = T_INCIDENT if phase == "Pending" else T_APPS
    spec = {"containers": w["containers"], "volumes": pod_volumes(ids, w["name"], w["name"] + "-config"),
            "dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler",
            "securityContext": {"fsGroup": 65534}, "serviceAccount": w["name"], "serviceAccountName": w["name"],
            "terminationGracePeriodSeconds": 30, "tolerations": w["tolerations"] + DEFAULT_TOLERATIONS}
    if w["node_selector"]:
        spec["nodeSelector"] = w["node_selector"]
    if node_name:
        spec["nodeName"] = node_name
    if phase == "Pending":
        status = {"phase": "Pending", "qosClass": "Burstable", "conditions": [{
            "type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": created,
            "reason": "Unschedulable", "message": message}]}
    else:
        ip = f"10.{100 + rng.randrange(50)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
        started = T_APPS[:-3] + "%02dZ" % rng.randrange(60)
        done = phase == "Succeeded"
        status = {"phase": phase, "qosClass": "Burstable", "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
                  "podIP": ip, "podIPs": [{"ip": ip}], "startTime": created, "conditions": [
                      {"type": t, "status": "False" if done and t in ("Ready", "ContainersReady") else "True",
                       "lastProbeTime": None, "lastTransitionTime": started}
                      for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
                  "containerStatuses": [{
                      "name": c["name"], "image": c["image"], "ready": not done, "started": not done,
                      "imageID": c["image"].split(":")[0] + "@sha256:" + ids.hex(64, c["image"]),
                      "containerID": "containerd://" + ids.hex(64, name, c["name"]), "restartCount": rng.randrange(3),
                      "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": started,
                                               "finishedAt": T_NOW}} if done else {"running": {"startedAt": started}}}
                      for c in w["containers"]]}
    owner = {"apiVersion": "apps/v1", "kind": "DaemonSet" if daemon else "ReplicaSet", "name": prefix,
             "uid": ids.uid("owner", w["ns"], prefix), "controller": True, "blockOwnerDeletion": True}
    labels = dict(w["labels"], **{"controller-revision-hash" if daemon else "pod-template-hash": w["hash"]})
    mf = [managed_fields("kube-controller-manager", "Update", created, {"f:metadata": {
              "f:generateName": {}, "f:labels": {f"f:{k}": {} for k in labels},
              "f:ownerReferences": {f'k:{{"uid":"{owner["uid"]}"}}': {}}},
              "f:spec": {"f:containers": {f'k:{{"name":"{c["name"]}"}}': {
                  ".": {}, "f:env": {}, "f:image": {}, "f:ports": {}, "f:resources": {}, "f:volumeMounts": {}}
                  for c in w["containers"]}, "f:volumes": {}, "f:tolerations": {}}})]
    if phase != "Pending":
        mf.append(managed_fields("kubelet", "Update", T_APPS, {"f:status": {
            "f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {},
            "f:startTime": {}}}, "status"))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "generateName": prefix + "-", "namespace": w["ns"],
        "uid": ids.uid("pod", w["ns"], name), "resourceVersion": "1", "creationTimestamp": created,
        "labels": labels, "annotations": {"kubectl.kubernetes.io/restartedAt": T_APPS,
                                          "prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
        "ownerReferences": [owner], "managedFields": mf}, "spec": spec, "status": status}


def workload(ids, rng, ns, name, gpus=0, replicas=1, kind="Deployment"):
    """The parts of a Deployment (or DaemonSet) that its pods share."""
    image = rng.choice(IMAGES[:3] if gpus else IMAGES[3:])
    requests = {"cpu": rng.choice(["250m", "500m", "1", "2"]), "memory": rng.choice(["512Mi", "1Gi", "4Gi"])}
    limits = {"memory": requests["memory"]}
    tolerations, selector = [], {}
    if gpus:
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = str(gpus)
        tolerations = [GPU_TOLERATION]
        selector = {"k8s.amazonaws.com/accelerator": rng.choice(GPU_TYPES)[4]}
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": ns, "team": ns.split("-")[0]}
    containers = [container(ids, rng, name, image, requests, limits, bool(gpus))]
    if rng.random() < 0.3:  # a logging sidecar
        containers.append(container(ids, rng, "fluent-bit", "platform/fluent-bit:3.1.9",
                                    {"cpu": "50m", "memory": "64Mi"}, {"memory": "128Mi"}))
    return {"kind": kind, "ns": ns, "name": name, "hash": ids.suffix(10, ns, name), "gpus": gpus,
            "replicas": replicas, "labels": labels, "containers": containers, "tolerations": tolerations,
            "node_selector": selector}


def workload_object(ids, w, ready):
    template = {"metadata": {"labels": w["labels"]}, "spec": {
        "containers": w["containers"], "tolerations": w["tolerations"], "restartPolicy": "Always",
        "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler", "serviceAccountName": w["name"],
        "securityContext": {"fsGroup": 65534}, "terminationGracePeriodSeconds": 30}}
    if w["node_selector"]:
        template["spec"]["nodeSelector"] = w["node_selector"]
    if not template["spec"]["tolerations"]:
        del template["spec"]["tolerations"]
    meta = {"name": w["name"], "namespace": w["ns"], "uid": ids.uid(w["kind"], w["ns"], w["name"]),
            "resourceVersion": "1", "generation": 2, "creationTimestamp": T_APPS, "labels": w["labels"]}
    selector = {"matchLabels": {"app.kubernetes.io/name": w["name"]}}
    if w["kind"] == "DaemonSet":
        template["spec"]["priorityClassName"] = "system-node-critical"
        return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta, "spec": {
            "selector": selector, "template": template, "revisionHistoryLimit": 10,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}},
            "status": {"currentNumberScheduled": ready, "desiredNumberScheduled": ready, "numberReady": ready,
                       "numberAvailable": ready, "updatedNumberScheduled": ready, "numberMisscheduled": 0,
                       "observedGeneration": 2}}
    status = {"observedGeneration": 2, "replicas": w["replicas"], "updatedReplicas": w["replicas"],
              "readyReplicas": ready, "availableReplicas": ready}
    if w["replicas"] > ready:
        status["unavailableReplicas"] = w["replicas"] - ready
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {
        "replicas": w["replicas"], "selector": selector, "template": template, "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600, "strategy": {"type": "RollingUpdate", "rollingUpdate": {
            "maxSurge": "25%", "maxUnavailable": "25%"}}}, "status": status}


def event(ids, ns, name, kind, uid, reason, message, etype="Normal", component="kubelet", count=1, host=""):
    ev_name = f"{name}.{ids.hex(16, ns, name, reason)}"
    return {"apiVersion": "v1", "kind": "Event", "metadata": {
        "name": ev_name, "namespace": ns or "default", "uid": ids.uid("ev", ns, ev_name), "resourceVersion": "1",
        "creationTimestamp": T_INCIDENT},
        "involvedObject": {"apiVersion": "v1", "kind": kind, "namespace": ns, "name": name, "uid": uid},
        "reason": reason, "message": message, "type": etype, "source": {"component": component, "host": host},
        "firstTimestamp": T_INCIDENT, "lastTimestamp": T_NOW, "count": count, "eventTime": None,
        "reportingComponent": component, "reportingInstance": host}


SCHEDULER_GPU = ("0/{n} nodes are available: {g} Insufficient nvidia.com/gpu, {c} node(s) didn't match Pod's node "
                 "affinity/selector. preemption: 0/{n} nodes are available: {g} No preemption victims found for "
                 "incoming pod, {c} Preemption is not helpful for scheduling.")
SCHEDULER_CPU = ("0/{n} nodes are available: {c} Insufficient cpu, {g} node(s) had untolerated taint "
                 "{{nvidia.com/gpu: true}}. preemption: 0/{n} nodes are available: {c} No preemption victims found "
                 "for incoming pod, {g} Preemption is not helpful for scheduling.")
AUTOSCALER_GPU = "pod didn't trigger scale-up: {m} max node group size reached, {s} node(s) didn't match Pod's node affinity/selector"
LIFECYCLE = [("Scheduled", "Normal", "default-scheduler", "Successfully assigned {ns}/{pod} to {node}"),
             ("Pulling", "Normal", "kubelet", 'Pulling image "{image}"'),
             ("Pulled", "Normal", "kubelet", 'Successfully pulled image "{image}" in 1.482s (1.482s including waiting). Image size: 187245123 bytes.'),
             ("Created", "Normal", "kubelet", "Created container {container}"),
             ("Started", "Normal", "kubelet", "Started container {container}"),
             ("Unhealthy", "Warning", "kubelet", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
             ("BackOff", "Warning", "kubelet", "Back-off restarting failed container {container} in pod {pod}_{ns}({uid})"),
             ("Killing", "Normal", "kubelet", "Stopping container {container}")]


class Writer:
    """Streams one kubectl List: items are written as they are made, never held."""

    def __init__(self, out):
        self.out, self.count = out, 0
        out.write('{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n')

    def add(self, obj):
        self.out.write(("," if self.count else "") + DUMPS(obj) + "\n")
        self.count += 1

    def close(self):
        self.out.write("]}\n")


def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": name, "labels": {"kubernetes.io/metadata.name": name}, "creationTimestamp": T_NODES},
        "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


def autoscaler(ids, rng, w, gpu_groups):
    w["containers"][0].update(image="registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.2", command=[
        "./cluster-autoscaler", "--cloud-provider=aws", "--namespace=kube-system",
        "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/ml-prod"])
    groups = "".join(f"""- name: eks-{g}-{ids.hex(8, g)}
  health:
    status: Healthy
    nodeCounts:
      registered: {{total: {n}, ready: {n}, notStarted: 0}}
    cloudProviderTarget: {n}
    minSize: 0
    maxSize: {n}
  scaleUp: {{status: NoActivity}}
""" for g, n in gpu_groups)
    status = f"time: {T_NOW}\nautoscalerStatus: Running\nclusterWide:\n  health: {{status: Healthy}}\nnodeGroups:\n{groups}"
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "cluster-autoscaler-status", "namespace": "kube-system", "uid": ids.uid("cm", "ca"),
        "creationTimestamp": T_NODES, "annotations": {"cluster-autoscaler.kubernetes.io/last-updated": T_NOW}},
        "data": {"status": status}}


def generate(size, seed, out):
    f, rng, ids = SCALE[size], random.Random(seed), Ids(seed)
    n_nodes, n_gpu_nodes = round(L_NODES * f), round(L_GPU_NODES * f)
    n_pods, n_gpu_node_pods = round(L_PODS * f), round(L_GPU_NODE_PODS * f)
    n_pending_gpu, n_pending_cpu = round(L_PENDING_GPU * f), round(L_PENDING_CPU * f)
    n_events, n_gpu_deployments = round(L_EVENTS * f), max(2, round(L_GPU_DEPLOYMENTS * f))
    writer = Writer(out)
    gpu_namespaces = [f"ml-{i}" for i in range(max(1, round(20 * f)))]
    cpu_namespaces = [f"team-{i}" for i in range(max(3, round(80 * f)))]
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] + gpu_namespaces + cpu_namespaces:
        writer.add(namespace(ns))

    nodes = []  # (name, ip, gpu type or None)
    for i in range(n_nodes):
        gpu_type = GPU_TYPES[rng.randrange(len(GPU_TYPES))] if i < n_gpu_nodes else None
        obj = node(ids, rng, i, gpu_type)
        writer.add(obj)
        nodes.append((obj["metadata"]["name"], obj["status"]["addresses"][0]["address"], gpu_type))
    gpu_nodes, cpu_nodes = nodes[:n_gpu_nodes], nodes[n_gpu_nodes:]
    placed = []  # (ns, pod, uid, node, image, container): what lifecycle events talk about

    def emit_pod(w, index, where=None, phase="Running", message=None):
        p = pod(ids, rng, w, index, where and where[0], where and where[1], phase, message)
        writer.add(p)
        if phase == "Running":
            placed.append((w["ns"], p["metadata"]["name"], p["metadata"]["uid"], where[0],
                           w["containers"][0]["image"], w["containers"][0]["name"]))
        return p

    # Daemons on every node (and the device plugin on GPU nodes).
    daemons = [workload(ids, rng, "kube-system", "aws-node", kind="DaemonSet"),
               workload(ids, rng, "kube-system", "kube-proxy", kind="DaemonSet")]
    plugin = workload(ids, rng, "kube-system", "nvidia-device-plugin-daemonset", kind="DaemonSet")
    plugin["containers"] = [container(ids, rng, "nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
                                      {}, {})]
    plugin["tolerations"], plugin["node_selector"] = [GPU_TOLERATION], {"nvidia.com/gpu.present": "true"}
    for d in daemons + [plugin]:
        d["tolerations"] = d["tolerations"] or [{"operator": "Exists"}]
        targets = gpu_nodes if d is plugin else nodes
        writer.add(workload_object(ids, d, len(targets)))
        for i, n in enumerate(targets):
            emit_pod(d, i, n)
    pods_left = n_pods - 2 * n_nodes - n_gpu_nodes

    # GPU Deployments: every GPU taken (the incident), 10 % more replicas than GPUs, Pending.
    gpu_deployments = []
    for i in range(n_gpu_deployments):
        w = workload(ids, rng, gpu_namespaces[i % len(gpu_namespaces)], f"gpu-infer-{i}", gpus=1)
        w["node_selector"] = {"k8s.amazonaws.com/accelerator": GPU_TYPES[i % len(GPU_TYPES)][4]}
        gpu_deployments.append(w)
    slots = {}  # accelerator -> [node, node, ...] one entry per GPU
    for n in gpu_nodes:
        slots.setdefault(n[2][4], []).extend([n] * n[2][1])
    running = {id(w): [] for w in gpu_deployments}
    for accel, where in slots.items():
        mine = [w for w in gpu_deployments if w["node_selector"]["k8s.amazonaws.com/accelerator"] == accel] or gpu_deployments
        for k, n in enumerate(where):
            running[id(mine[k % len(mine)])].append(n)
    pending_gpu = []
    for i, w in enumerate(gpu_deployments):
        pending = n_pending_gpu // n_gpu_deployments + (i < n_pending_gpu % n_gpu_deployments)
        w["replicas"] = len(running[id(w)]) + pending
        writer.add(workload_object(ids, w, len(running[id(w)])))
        for k, n in enumerate(running[id(w)]):
            emit_pod(w, k, n)
        msg = SCHEDULER_GPU.format(n=n_nodes, g=n_gpu_nodes, c=n_nodes - n_gpu_nodes)
        for k in range(pending):
            pending_gpu.append(emit_pod(w, 1000 + k, None, "Pending", msg))
        pods_left -= w["replicas"]

    # CPU Deployments fill what is left; one in eight tolerates everything and fills GPU nodes (GS303).
    ca = workload(ids, rng, "kube-system", "cluster-autoscaler", replicas=1)
    cpu_deployments, total = [ca], 1
    while total < pods_left:
        w = workload(ids, rng, cpu_namespaces[len(cpu_deployments) % len(cpu_namespaces)],
                     f"svc-{len(cpu_deployments)}", replicas=min(rng.randrange(5, 46), pods_left - total))
        if len(cpu_deployments) % 8 == 0:
            w["tolerations"] = [{"operator": "Exists"}]
        cpu_deployments.append(w)
        total += w["replicas"]
    groups = [(f"gpu-{t[0].replace('.', '-')}", sum(1 for n in gpu_nodes if n[2] is t)) for t in GPU_TYPES]
    writer.add(autoscaler(ids, rng, ca, groups))
    gpu_free = [n for n in gpu_nodes for _ in range(max(0, n_gpu_node_pods // max(1, n_gpu_nodes) - 3 - n[2][1]))]
    cpu_cursor, pending_cpu = 0, []
    msg_cpu = SCHEDULER_CPU.format(n=n_nodes, g=n_gpu_nodes, c=n_nodes - n_gpu_nodes)
    fillers = sorted(cpu_deployments, key=lambda w: not w["tolerations"])
    for w in fillers:
        ready = w["replicas"]
        for k in range(w["replicas"]):
            if w is not ca and len(pending_cpu) < n_pending_cpu and not w["tolerations"] and k == w["replicas"] - 1:
                pending_cpu.append(emit_pod(w, k, None, "Pending", msg_cpu))
                ready -= 1
            elif gpu_free and w["tolerations"]:
                emit_pod(w, k, gpu_free.pop())
            else:
                emit_pod(w, k, cpu_nodes[cpu_cursor % len(cpu_nodes)])
                cpu_cursor += 1
        writer.add(workload_object(ids, w, ready))

    # Events: the scheduler's and the autoscaler's verdicts on every Pending pod, then pod lifecycle noise.
    written = 0
    for p in pending_gpu + pending_cpu:
        m = p["metadata"]
        writer.add(event(ids, m["namespace"], m["name"], "Pod", m["uid"], "FailedScheduling",
                         p["status"]["conditions"][0]["message"], "Warning", "default-scheduler", rng.randrange(3, 40)))
        written += 1
        if "Insufficient nvidia.com/gpu" in p["status"]["conditions"][0]["message"]:
            writer.add(event(ids, m["namespace"], m["name"], "Pod", m["uid"], "NotTriggerScaleUp",
                             AUTOSCALER_GPU.format(m=n_gpu_nodes and 6, s=12), "Normal", "cluster-autoscaler",
                             rng.randrange(3, 40)))
            written += 1
    for i in range(max(0, n_events - written)):
        ns, name, uid, where, image, cname = placed[rng.randrange(len(placed))]
        reason, etype, component, text = LIFECYCLE[i % len(LIFECYCLE)]
        writer.add(event(ids, ns, name + f".{i}", "Pod", uid, reason, text.format(
            ns=ns, pod=name, node=where, image=image, container=cname, uid=uid), etype, component,
            1 + rng.randrange(5), where if component == "kubelet" else ""))
    writer.close()
    return writer.count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=sorted(SCALE), required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "w", buffering=1 << 20) as out:
        count = generate(args.size, args.seed, out)
    print(f"{args.out}: {count} objects", file=sys.stderr)


if __name__ == "__main__":
    main()
