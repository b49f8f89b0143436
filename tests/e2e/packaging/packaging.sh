#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packaging end to end, on the build tree:
# - the man page renders with groff -ww without a warning;
# - `cmake --install` puts the binary, its completion symlink, man1 page, bash/zsh/fish
#   completions, LICENSE and RBAC files in the standard places;
# - CPack builds the .deb and the krew .tar.gz; the .deb, unpacked with dpkg -x into a scratch
#   root, runs; the archive holds what the krew manifest extracts;
# - plugins/gpuslice.yaml passes krew's manifest rules, is .krew.yaml rendered for its version,
#   and rendering .krew.yaml with the archive just built gives that archive's sha256.
#   packaging.sh --build DIR --source DIR
set -uo pipefail
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --source) source=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-pkg-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { if [[ $2 == "$3" ]]; then passed=$((passed + 1)); echo "ok   $1"; else
  failed=$((failed + 1)); echo "FAIL $1"; echo "  expected: $3"; echo "  actual:   $2"; fi; }
version=v$(sed -n 's/^project(kubectl-gpuslice VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")

# The man page.
check "man page renders without groff warnings" \
  "$(groff -ww -man -Tutf8 -z "$source/man/kubectl-gpuslice.1" 2>&1)" ""

# cmake --install.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1
check "cmake --install succeeds" "$?" 0
for f in bin/kubectl-gpuslice share/man/man1/kubectl-gpuslice.1 share/bash-completion/completions/kubectl-gpuslice \
         share/zsh/vendor-completions/_kubectl-gpuslice share/fish/vendor_completions.d/kubectl-gpuslice.fish \
         share/doc/kubectl-gpuslice/LICENSE share/doc/kubectl-gpuslice/rbac/gpuslice-diagnose.yaml; do
  check "installed $f" "$([[ -s $work/prefix/$f ]] && echo yes)" yes
done
check "kubectl_complete-gpuslice is a symlink to the binary" \
  "$(readlink "$work/prefix/bin/kubectl_complete-gpuslice")" kubectl-gpuslice
check "the installed completion answers kubectl's protocol" \
  "$("$work/prefix/bin/kubectl_complete-gpuslice" expl | cut -f1)" $'explain\n:4'

# CPack: .deb and the krew archive.
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1)
check "cpack builds both packages" "$?" 0
deb=$(ls "$work"/pkg/*.deb 2>/dev/null | head -1)
tgz=$(ls "$work"/pkg/kubectl-gpuslice_"$version"_linux_*.tar.gz 2>/dev/null | head -1)
check "a .deb was built" "$([[ -f $deb ]] && echo yes)" yes
check "the krew archive is named as the manifest's uri says" "$([[ -f $tgz ]] && echo yes)" yes
dpkg-deb -x "$deb" "$work/root"
check "the .deb's binary runs" "$("$work/root/usr/bin/kubectl-gpuslice" version --client)" "Client Version: $version"
check "the .deb's binary explains" \
  "$("$work/root/usr/bin/kubectl-gpuslice" explain GS300 | head -1)" "GS300 time-slicing-disabled (error)"
check "the .deb ships the man page" "$([[ -s $work/root/usr/share/man/man1/kubectl-gpuslice.1 ]] && echo yes)" yes
check "the .deb's package name" "$(dpkg-deb -f "$deb" Package)" kubectl-gpuslice
missing_libs=$(ldd "$work/root/usr/bin/kubectl-gpuslice" | grep -c 'not found')
check "the .deb's binary finds its libraries" "$missing_libs" 0
# Each library the binary links directly (ELF NEEDED) must come from a package that Depends names.
for needed in $(readelf -d "$work/root/usr/bin/kubectl-gpuslice" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  lib=$(ldd "$work/root/usr/bin/kubectl-gpuslice" | awk -v n="$needed" '$1 == n {print $3}')
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | cut -d: -f1 | head -1)
  [[ -z $pkg ]] && pkg=$(dpkg -S "$lib" 2>/dev/null | cut -d: -f1 | head -1)
  case $pkg in libc6|libgcc-s1|libstdc++6|"") continue ;; esac
  grep -q "\b$pkg\b" <<<"$(dpkg-deb -f "$deb" Depends)" ||
    check "Depends names $pkg (for $(basename "$lib"))" missing present
done

# The krew archive holds everything the manifest extracts.
tar -tzf "$tgz" | sed 's|^\./||' >"$work/archive.txt"
for from in $(python3 -c 'import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
print("\n".join(sorted({f["from"] for p in m["spec"]["platforms"] for f in p["files"]})))' "$source/plugins/gpuslice.yaml"); do
  check "archive has $from" "$(grep -c "^${from//\*/.*}$" "$work/archive.txt" | sed 's/^[1-9][0-9]*$/yes/')" yes
done

# The krew manifest.
check "plugins/gpuslice.yaml passes krew's rules" \
  "$(python3 "$source/packaging/krew/validate-manifest.py" "$source/plugins/gpuslice.yaml")" ""
arch=$(basename "$tgz" .tar.gz); arch=${arch##*_}
mkdir -p "$work/plugins"
python3 "$source/packaging/krew/render-manifest.py" --template "$source/.krew.yaml" --version "$version" \
  --archive "$arch=$tgz" --sha "$([[ $arch == amd64 ]] && echo arm64 || echo amd64)=$(printf 'a%.0s' {1..64})" \
  --out "$work/plugins/gpuslice.yaml"
check "the manifest rendered for this build passes krew's rules" \
  "$(python3 "$source/packaging/krew/validate-manifest.py" "$work/plugins/gpuslice.yaml")" ""
check "its $arch sha256 is the archive's" \
  "$(python3 -c 'import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
print([p["sha256"] for p in m["spec"]["platforms"] if p["selector"]["matchLabels"]["arch"] == sys.argv[2]][0])' \
    "$work/plugins/gpuslice.yaml" "$arch")" "$(sha256sum "$tgz" | cut -d' ' -f1)"
# The committed manifest is the template rendered with the release's digests: render it again
# with those digests and compare.
committed_shas=$(python3 -c 'import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
print(" ".join("--sha %s=%s" % (p["selector"]["matchLabels"]["arch"], p["sha256"]) for p in m["spec"]["platforms"]))
' "$source/plugins/gpuslice.yaml")
committed_version=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["version"])' \
  "$source/plugins/gpuslice.yaml")
# shellcheck disable=SC2086
python3 "$source/packaging/krew/render-manifest.py" --template "$source/.krew.yaml" --version "$committed_version" \
  $committed_shas --out "$work/committed-again.yaml"
check "plugins/gpuslice.yaml is .krew.yaml rendered (only digests differ by release)" \
  "$(diff "$work/committed-again.yaml" "$source/plugins/gpuslice.yaml" && echo same)" same
check "plugins/gpuslice.yaml is for this version" "$committed_version" "$version"

echo "$passed passed, $failed failed"
((failed == 0))
