#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one golden case: tests/golden/<case>/cmd holds the arguments (shell words, paths
# relative to the repository root); the binary's stdout must equal expected.txt or
# expected.json, its stderr expected.err (when present), and its exit code the number in
# `exit`. UPDATE_GOLDEN=1 rewrites the expected files from the current output: review the diff.
#   run_golden.sh BINARY SOURCE_DIR CASE
set -uo pipefail
bin=$1 source_dir=$2 case=$3
case_dir=$source_dir/tests/golden/$case
cd "$source_dir" || exit 2

eval "set -- $(cat "$case_dir/cmd")"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
NO_COLOR=1 COLUMNS=0 "$bin" "$@" >"$out" 2>"$err" </dev/null
code=$?

expected_out=$case_dir/expected.txt
[[ -f $case_dir/expected.json ]] && expected_out=$case_dir/expected.json

if [[ ${UPDATE_GOLDEN:-} == 1 ]]; then
  cp "$out" "$expected_out"
  echo "$code" >"$case_dir/exit"
  if [[ -s $err ]]; then cp "$err" "$case_dir/expected.err"; else rm -f "$case_dir/expected.err"; fi
  echo "golden $case: updated"
  exit 0
fi

status=0
if ! diff -u "$expected_out" "$out"; then
  echo "golden $case: stdout differs from $expected_out (UPDATE_GOLDEN=1 to accept)" >&2
  status=1
fi
if [[ -f $case_dir/expected.err ]]; then
  if ! diff -u "$case_dir/expected.err" "$err"; then
    echo "golden $case: stderr differs" >&2
    status=1
  fi
elif [[ -s $err ]]; then
  echo "golden $case: unexpected stderr:" >&2
  cat "$err" >&2
  status=1
fi
want=$(cat "$case_dir/exit")
if [[ $code != "$want" ]]; then
  echo "golden $case: exit code $code, expected $want" >&2
  status=1
fi
exit $status
