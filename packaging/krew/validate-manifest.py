#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks a krew plugin manifest against krew's own rules (kubernetes-sigs/krew
internal/index/validation/validate.go, summarised in shared/reference/peers.md §11) and
against what kubectl-gpuslice promises (linux/amd64 and linux/arm64, LICENSE shipped).
Prints every violation and exits 1 if there is any.

  validate-manifest.py plugins/gpuslice.yaml
"""
import os
import re
import sys

import yaml

WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(1, 10)} | {f"lpt{i}" for i in range(1, 10)}
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def validate(path):
    errors = []
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    if not isinstance(doc, dict):
        return ["the manifest is not a YAML mapping"]
    if doc.get("apiVersion") != "krew.googlecontainertools.github.com/v1alpha2":
        errors.append(f"apiVersion {doc.get('apiVersion')!r}: must be krew.googlecontainertools.github.com/v1alpha2")
    if doc.get("kind") != "Plugin":
        errors.append(f"kind {doc.get('kind')!r}: must be Plugin")
    name = (doc.get("metadata") or {}).get("name", "")
    if not re.fullmatch(r"[\w-]+", name or ""):
        errors.append(f"metadata.name {name!r}: must match ^[\\w-]+$")
    if (name or "").lower() in WINDOWS_RESERVED:
        errors.append(f"metadata.name {name!r}: a Windows reserved name")
    stem = os.path.splitext(os.path.basename(path))[0]
    if os.path.basename(os.path.dirname(os.path.abspath(path))) == "plugins" and stem != name:
        errors.append(f"metadata.name {name!r}: must equal the file name {stem!r}")
    spec = doc.get("spec") or {}
    if not SEMVER.match(str(spec.get("version", ""))):
        errors.append(f"spec.version {spec.get('version')!r}: must be semver with a v prefix")
    short = spec.get("shortDescription")
    if not short:
        errors.append("spec.shortDescription: required")
    elif "\n" in short.strip("\n") or "\r" in short:
        errors.append("spec.shortDescription: must be one line")
    if not spec.get("description"):
        errors.append("spec.description: required")
    if not str(spec.get("homepage", "")).startswith("https://"):
        errors.append("spec.homepage: an https URL is expected")
    platforms = spec.get("platforms") or []
    if not platforms:
        errors.append("spec.platforms: at least one platform")
    seen = set()
    for i, p in enumerate(platforms):
        where = f"spec.platforms[{i}]"
        selector = p.get("selector")
        if not selector:
            errors.append(f"{where}.selector: required and not empty")
            selector = {}
        labels = selector.get("matchLabels") or {}
        keys = set(labels) | {e.get("key") for e in selector.get("matchExpressions") or []}
        if not keys:
            errors.append(f"{where}.selector: matches nothing")
        for key in keys - {"os", "arch"}:
            errors.append(f"{where}.selector: key {key!r} (only os and arch are allowed)")
        seen.add((labels.get("os"), labels.get("arch")))
        uri = p.get("uri", "")
        if not uri:
            errors.append(f"{where}.uri: required")
        elif not (uri.endswith(".tar.gz") or uri.endswith(".zip")):
            errors.append(f"{where}.uri: must be a .tar.gz or .zip archive")
        if not re.fullmatch(r"[a-f0-9]{64}", str(p.get("sha256", ""))):
            errors.append(f"{where}.sha256: must be 64 lowercase hex digits")
        if not p.get("bin"):
            errors.append(f"{where}.bin: required")
        if "files" in p:
            files = p["files"] or []
            if not files:
                errors.append(f"{where}.files: when given, must not be empty")
            for j, entry in enumerate(files):
                if not entry.get("from") or not entry.get("to"):
                    errors.append(f"{where}.files[{j}]: needs from and to")
            if not any(os.path.basename(e.get("from", "")) == "LICENSE" for e in files):
                errors.append(f"{where}.files: must extract LICENSE (krew-index requirement)")
    for needed in [("linux", "amd64"), ("linux", "arm64")]:
        if needed not in seen:
            errors.append(f"spec.platforms: no {needed[0]}/{needed[1]} platform")
    return errors


def main():
    failed = False
    for path in sys.argv[1:]:
        for error in validate(path):
            print(f"{path}: {error}")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
