#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's quick start is what CI runs: the two commands in the README's first ```sh block
# under "## Quick start" must equal, byte for byte, the `quickstart_build=` and
# `quickstart_test=` lines of .ci/run, which runs exactly those. Exit 0 when they agree, 1 with
# both versions printed when they drift apart, 2 when a file lacks them.
#   drift.sh --readme README.md --ci .ci/run          check the two files
#   drift.sh --self-test --readme R --ci C            also prove a drift in either file is caught
set -uo pipefail
readme= ci= self_test=
while (($#)); do
  case $1 in
    --readme) readme=$2; shift 2 ;;
    --ci) ci=$2; shift 2 ;;
    --self-test) self_test=yes; shift ;;
    *) echo "drift.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# The lines of the first ```sh block after the "## Quick start" heading.
readme_commands() {
  awk '/^## Quick start/ { in_section = 1; next }
       in_section && /^## / { exit }
       in_section && /^```sh$/ { in_block = 1; next }
       in_block && /^```$/ { exit }
       in_block { print }' "$1"
}

# The single-quoted value of NAME='…' in .ci/run.
ci_command() {
  sed -n "s/^$2='\\(.*\\)'\$/\\1/p" "$1"
}

check() { # check README CI
  local from_readme from_ci
  from_readme=$(readme_commands "$1")
  from_ci=$(printf '%s\n%s' "$(ci_command "$2" quickstart_build)" "$(ci_command "$2" quickstart_test)")
  if [[ -z $from_readme ]]; then
    echo "drift.sh: $1 has no \`\`\`sh block under '## Quick start'" >&2; return 2
  fi
  if [[ $from_ci == $'\n' || -z $(ci_command "$2" quickstart_build) || -z $(ci_command "$2" quickstart_test) ]]; then
    echo "drift.sh: $2 has no quickstart_build='…' and quickstart_test='…' lines" >&2; return 2
  fi
  if [[ $from_readme != "$from_ci" ]]; then
    echo "drift.sh: the README's quick start and what .ci/run runs differ:" >&2
    echo "--- $1 (## Quick start)" >&2; echo "$from_readme" >&2
    echo "--- $2 (quickstart_build, quickstart_test)" >&2; echo "$from_ci" >&2
    return 1
  fi
  echo "README quick start = .ci/run:"
  echo "$from_readme" | sed 's/^/  /'
}

[[ -f $readme && -f $ci ]] || { echo "drift.sh: --readme and --ci must name files" >&2; exit 2; }
check "$readme" "$ci" || exit $?
[[ -n $self_test ]] || exit 0

# A check that cannot fail proves nothing: an edit to either side must be caught.
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuslice-drift-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
expect_drift() { # expect_drift WHAT README CI
  if check "$2" "$3" >/dev/null 2>&1; then echo "FAIL: not caught: $1"; failures=$((failures + 1));
  else echo "ok   caught: $1"; fi
}
sed 's/cmake --build build --target demo/cmake --build build/' "$readme" >"$work/README.md"
expect_drift "README's first command edited" "$work/README.md" "$ci"
sed 's/--output-on-failure -j2$/--output-on-failure -j4/' "$readme" >"$work/README2.md"
expect_drift "README's test command edited" "$work/README2.md" "$ci"
sed "s/^quickstart_build='\\(.*\\) && examples\\/demo.sh'\$/quickstart_build='\\1'/" "$ci" >"$work/run"
expect_drift ".ci/run's first command edited" "$readme" "$work/run"
grep -v '^quickstart_test=' "$ci" >"$work/run2"
expect_drift ".ci/run's test command removed" "$readme" "$work/run2"
((failures == 0))
