#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Seed corpora for the fuzz targets: real inputs from tests/fixtures, plus the hand-written
seeds in tests/fuzz/seeds/<target>/ and every crash found so far (tests/fuzz/regressions/<target>/).
Usage: make_seeds.py SOURCE_DIR OUT_DIR  (writes OUT_DIR/<target>/<name>)."""
import json
import pathlib
import shutil
import sys

src = pathlib.Path(sys.argv[1])
out = pathlib.Path(sys.argv[2])
fixtures = src / "tests" / "fixtures"
fuzz = src / "tests" / "fuzz"


def put(target, name, data):
    folder = out / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def messages(kind):
    doc = json.loads((fixtures / "messages" / f"{kind}.json").read_text())
    return [m["message"] for m in doc["messages"] if "message" in m]


for target in ("scheduler", "autoscaler", "karpenter"):
    for i, text in enumerate(messages(target)):
        put(f"{target}_message", f"fixture-{i}", text)
for path in sorted((fixtures / "messages" / "autoscaler-status").iterdir()):
    put("autoscaler_message", "status-" + path.name, path.read_bytes())
for path in sorted((fixtures / "kubeconfig").rglob("*.yaml")):
    put("kubeconfig", path.name, path.read_bytes())
snapshot_inputs = list((fixtures / "objects").iterdir()) + list((fixtures / "scenarios").glob("*.yaml"))
snapshot_inputs += list((src / "examples").glob("*.json"))
for path in sorted(snapshot_inputs):
    put("snapshot_reader", path.name, path.read_bytes())
for path in sorted((fixtures / "objects").glob("helm-release-secret*.json")):
    put("helm_release", path.name, path.read_bytes())
    put("helm_release", "data-" + path.name, json.loads(path.read_text())["data"]["release"])
for folder in ("seeds", "regressions"):
    for target_dir in sorted(p for p in (fuzz / folder).glob("*") if p.is_dir()):
        for path in sorted(target_dir.iterdir()):
            put(target_dir.name, f"{folder}-{path.name}", path.read_bytes())
