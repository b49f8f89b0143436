#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Renders the krew-release-bot template (.krew.yaml) into a krew manifest, as the bot does on
a release: {{ .TagName }} becomes the version, and each {{addURIAndSha "URL" .TagName}} becomes
`uri: URL` plus `sha256:` of the archive built for that platform (given with --archive ARCH=PATH)
or a known digest (--sha ARCH=HEX, for platforms not built here).

  render-manifest.py --template .krew.yaml --version v0.1.0 --archive amd64=pkg.tar.gz \
                     [--sha arm64=HEX] --out plugins/gpuslice.yaml
"""
import argparse
import hashlib
import re
import sys


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pairs(values, what):
    out = {}
    for value in values or []:
        arch, sep, rest = value.partition("=")
        if not sep or not rest:
            sys.exit(f"render-manifest: --{what} {value!r}: must be ARCH=VALUE")
        out[arch] = rest
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--template", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--archive", action="append")
    parser.add_argument("--sha", action="append")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    digests = pairs(args.sha, "sha")
    for arch, path in pairs(args.archive, "archive").items():
        digests[arch] = sha256_of(path)

    text = open(args.template, encoding="utf-8").read()
    # The template's own comment header is for maintainers, not for krew-index.
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    text = "".join(lines)

    def uri_and_sha(match):
        indent, url = match.group(1), match.group(2).replace("{{ .TagName }}", args.version)
        arch = re.search(r"_linux_([a-z0-9]+)\.tar\.gz$", url)
        if not arch or arch.group(1) not in digests:
            sys.exit(f"render-manifest: no archive or --sha for {url}")
        return f"{indent}uri: {url}\n{indent}sha256: \"{digests[arch.group(1)]}\""  # quoted: an all-digit digest is a string too

    text = re.sub(r'^( *)\{\{ *addURIAndSha "([^"]+)" \.TagName *\}\}', uri_and_sha, text, flags=re.M)
    text = text.replace("{{ .TagName }}", args.version)
    if "{{" in text:
        sys.exit("render-manifest: unrendered template expression left")
    header = "# Rendered from .krew.yaml by packaging/krew/render-manifest.py; submit to krew-index as plugins/gpuslice.yaml.\n"
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(header + text)


if __name__ == "__main__":
    main()
