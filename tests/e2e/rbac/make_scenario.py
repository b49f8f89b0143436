#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a fakekube scenario: the given scenario's objects, the packaging/rbac ClusterRoles,
the GPU Operator's ClusterPolicy CRD (so diagnose lists clusterpolicies), and users:
  admin  system:masters
  alice  gpuslice-diagnose cluster-wide + gpuslice-helm-releases in the device plugin namespace
  bob    gpuslice-diagnose only
  carol  nothing
  dave   gpuslice-diagnose + gpuslice-apply cluster-wide + gpuslice-helm-releases (device plugin ns)
  erin   gpuslice-diagnose + gpuslice-helm-releases: reads everything apply reads, may change nothing
  make_scenario.py SCENARIO RBAC_DIR OUT
"""
import glob
import sys

import yaml

scenario, rbac_dir, out = sys.argv[1:4]
objects = [d for d in yaml.safe_load_all(open(scenario)) if d]
for path in sorted(glob.glob(f"{rbac_dir}/*.yaml")):
    objects += [d for d in yaml.safe_load_all(open(path)) if d]
objects.append({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "clusterpolicies.nvidia.com"},
    "spec": {"group": "nvidia.com", "scope": "Cluster",
             "names": {"plural": "clusterpolicies", "singular": "clusterpolicy", "kind": "ClusterPolicy",
                       "listKind": "ClusterPolicyList"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]}})


def binding(kind, name, role, user, namespace=None):
    meta = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]}


objects += [
    binding("ClusterRoleBinding", "gpuslice-diagnose-alice", "gpuslice-diagnose", "alice"),
    binding("RoleBinding", "gpuslice-helm-releases-alice", "gpuslice-helm-releases", "alice", "nvidia-device-plugin"),
    binding("ClusterRoleBinding", "gpuslice-diagnose-bob", "gpuslice-diagnose", "bob"),
    binding("ClusterRoleBinding", "gpuslice-diagnose-dave", "gpuslice-diagnose", "dave"),
    binding("ClusterRoleBinding", "gpuslice-apply-dave", "gpuslice-apply", "dave"),
    binding("RoleBinding", "gpuslice-helm-releases-dave", "gpuslice-helm-releases", "dave", "nvidia-device-plugin"),
    binding("ClusterRoleBinding", "gpuslice-diagnose-erin", "gpuslice-diagnose", "erin"),
    binding("RoleBinding", "gpuslice-helm-releases-erin", "gpuslice-helm-releases", "erin", "nvidia-device-plugin"),
]
users = [{"name": "admin", "groups": ["system:masters"], "token": "t-admin"},
         {"name": "alice", "token": "t-alice"}, {"name": "bob", "token": "t-bob"},
         {"name": "carol", "token": "t-carol"}, {"name": "dave", "token": "t-dave"},
         {"name": "erin", "token": "t-erin"}]
# 1.34: the first release serving resource.k8s.io/v1, so the role's DRA rules are exercised too.
yaml.safe_dump({"serverVersion": "v1.34.2", "users": users, "objects": objects}, open(out, "w"), sort_keys=False)
