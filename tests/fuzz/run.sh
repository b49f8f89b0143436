#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every fuzz target of a GPUSLICE_FUZZ build for a bounded time, on its seed corpus (built
# by the fuzz_seeds target from tests/fixtures, tests/fuzz/seeds and tests/fuzz/regressions).
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
# A crash leaves its input in BUILD_DIR/fuzz-crashes/<target>/ and fails the run: copy it to
# tests/fuzz/regressions/<target>/, fix the bug, and add a unit test of the case.
set -euo pipefail
build=$1
seconds=${2:-10}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$build"/fuzz/fuzz_*; do targets+=("$(basename "$exe" | sed 's/^fuzz_//')"); done
fi
failed=()
for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target
  crashes=$build/fuzz-crashes/$target
  mkdir -p "$corpus" "$crashes"
  # Large inputs are the scenario files; 64 KiB keeps mutation fast while covering them.
  if ! ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=65536 \
       -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" \
       > "$build/fuzz-$target.log" 2>&1; then
    failed+=("$target")
    tail -40 "$build/fuzz-$target.log"
  fi
  echo "fuzz_$target: $(grep -E '^stat::number_of_executed_units' "$build/fuzz-$target.log" | awk '{print $2}') runs in ${seconds}s"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz targets that crashed: ${failed[*]} (inputs in $build/fuzz-crashes/)"
  exit 1
fi
