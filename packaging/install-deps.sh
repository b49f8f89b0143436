#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages that building and testing kubectl-gpuslice need.
# Idempotent: when every package is present it only checks, and returns in about a second.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libcurl4-openssl-dev libssl-dev zlib1g-dev libbrotli-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libyaml-cpp-dev doctest-dev
  libcpp-httplib-dev libsimdjson-dev
  clang libclang-rt-14-dev openssl curl jq python3 groff-base bash-completion
  python3-yaml binutils
)

# The demo runs real kubectl; Debian's own is kubernetes-client (1.20). A kubectl
# already on PATH (a newer one from the Kubernetes or Google Cloud repositories) is kept.
if ! command -v kubectl >/dev/null; then
  packages+=(kubernetes-client)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
