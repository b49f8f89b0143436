#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns tests/bench/run's raw rows into the markdown table of RESULTS.md: per scenario and
command the median wall time of the alternating runs, min-max, the median CPU time (user and
kernel, with the kernel's part: page faults show there), peak RSS, requests, MB received, and
ratios to the baselines measured in the same run (a: kubectl workflow, b: curl
transfer floor, c: simdjson parse floor)."""
import argparse
import datetime
import os
import platform
import statistics
import subprocess

ORDER = ["diagnose-live", "diagnose-file", "status", "apply", "a:kubectl", "b:curl", "b:curl-apply", "c:parse-floor"]
SHOWN = {"diagnose-live": "`diagnose -A -o json` (live)", "diagnose-file": "`diagnose --from-file snapshot -o json`",
         "status": "`status -A`", "apply": "`apply --replicas 4 --yes --no-wait`",
         "a:kubectl": "a: kubectl workflow", "b:curl": "b: curl, diagnose's URLs",
         "b:curl-apply": "b: curl, apply's GET URLs", "c:parse-floor": "c: simdjson parse floor"}


def machine(source):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) // 1024 // 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    commit = subprocess.run(["git", "-C", source or os.path.dirname(__file__), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return (f"{os.cpu_count()} cores ({cpu}), {mem} GiB, Linux {platform.release()}; "
            f"commit {commit}; {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")


def table(raw, sizes, qps_min):
    floors = {}  # (size, command) -> seconds the client-side limits in force alone need for its requests
    for line in open(qps_min) if qps_min and os.path.exists(qps_min) else []:
        size, name, seconds = line.split()
        floors[(size, name)] = float(seconds)
    rows = {}
    for line in open(raw):
        size, name, _, wall, rss, requests, nbytes, user, system = line.rstrip("\n").split("\t")
        r = rows.setdefault((size, name), {"wall": [], "rss": [], "requests": [], "bytes": nbytes, "cpu": [], "sys": []})
        r["cpu"].append(float(user) + float(system))
        r["sys"].append(float(system))
        r["wall"].append(float(wall))
        r["rss"].append(int(rss))
        r["requests"].append(int(requests))
    files = {}
    for line in open(sizes):
        size, scenario_bytes, snapshot_bytes, objects = line.split()
        files[size] = (int(scenario_bytes), int(snapshot_bytes), int(objects))
    out = ["| scenario | command | runs | median wall s | min–max s | median CPU s (of it kernel) | peak RSS MB | requests | MB | vs a (kubectl) | vs b (curl) | vs c (parse) | vs QPS minimum (writes 20/40; reads lifted by APF) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size in [s for s in ("S", "M", "L") if s in files]:
        med = {name: statistics.median(r["wall"]) for (s, name), r in rows.items() if s == size}
        for name in ORDER:
            r = rows.get((size, name))
            if not r:
                continue
            wall = med[name]
            vs_a = vs_b = vs_c = ""
            if name in ("diagnose-live", "status") and "a:kubectl" in med:
                vs_a = f"{wall / med['a:kubectl']:.3f}×"
            if name == "diagnose-live" and "b:curl" in med:
                vs_b = f"{wall / med['b:curl']:.2f}×"
            if name == "diagnose-file" and "c:parse-floor" in med:
                vs_c = f"{med['c:parse-floor'] / wall:.0%} of its MB/s; RSS {max(r['rss']) * 1024 / files[size][1]:.2f}× file"
            vs_q = ""
            if (size, name) in floors:
                floor = floors[(size, name)]
                vs_q = f"{wall / floor:.2f}× of {floor:.1f} s" if floor > 0 else "0 s: within the write burst"
                # apply must read before it can plan and write: its floor is those reads at
                # transfer speed, then the writes at the QPS limit.
                if name == "apply" and "b:curl-apply" in med:
                    both = med["b:curl-apply"] + floor
                    vs_q += f"; {wall / both:.2f}× of {both:.1f} s (its GETs by curl {med['b:curl-apply']:.1f} s + writes)"
            mb = f"{int(r['bytes']) / 1e6:.1f}" if r["bytes"] not in ("-", "") else "–"
            if name in ("diagnose-file", "c:parse-floor"):
                mb = f"{files[size][1] / 1e6:.1f} (file)"
            cpu = f"{statistics.median(r['cpu']):.2f} ({statistics.median(r['sys']):.2f})"
            out.append(f"| {size} | {SHOWN[name]} | {len(r['wall'])} | {wall:.3f} | {min(r['wall']):.3f}–{max(r['wall']):.3f} | "
                       f"{cpu} | {max(r['rss']) / 1024:.0f} | {max(r['requests'])} | {mb} | {vs_a} | {vs_b} | {vs_c} | {vs_q} |")
    scen = ", ".join(f"{s}: {o:,} objects, {b / 1e6:.0f} MB scenario, {n / 1e6:.1f} MB snapshot"
                     for s, (b, n, o) in files.items())
    return "\n".join(out), scen


# What each command must read, for the scaling table: the bytes it received (live) or the
# snapshot file (offline). Commands without a byte count scale against their request count.
DATA = {"diagnose-live": "bytes", "b:curl": "bytes", "status": "bytes", "diagnose-file": "file",
        "c:parse-floor": "file", "apply": "requests", "a:kubectl": "requests"}


def medians(raw_paths):
    """(size, command) -> median wall s, peak RSS KB, requests, bytes (None when not measured)."""
    rows = {}
    for path in raw_paths:
        for line in open(path):
            size, name, _, wall, rss, requests, nbytes = line.rstrip("\n").split("\t")[:7]
            r = rows.setdefault((size, name), {"wall": [], "rss": [], "requests": 0, "bytes": None})
            r["wall"].append(float(wall))
            r["rss"].append(int(rss))
            r["requests"] = max(r["requests"], int(requests))
            if nbytes not in ("-", ""):
                r["bytes"] = int(nbytes)
    return {k: {"wall": statistics.median(r["wall"]), "rss": max(r["rss"]), "requests": r["requests"], "bytes": r["bytes"]}
            for k, r in rows.items()}


def scaling(raw_paths, size_paths):
    """The scaling table: per command its data, wall and RSS at each size, and how much wall and
    RSS grew from one size to the next against how much the data grew (linear or better when the
    growth of wall and RSS is at most that of the data)."""
    med = medians(raw_paths)
    files = {}
    for path in size_paths:
        for line in open(path):
            size, _, snapshot_bytes, _ = line.split()
            files[size] = int(snapshot_bytes)
    sizes = [s for s in ("S", "M", "L") if any(k[0] == s for k in med)]
    if len(sizes) < 2:
        return ""

    def data(size, name):
        r = med.get((size, name))
        if r is None:
            return None, ""
        kind = DATA.get(name, "requests")
        if kind == "bytes" and r["bytes"]:
            return r["bytes"] / 1e6, "MB received"
        if kind == "file" and size in files:
            return files[size] / 1e6, "MB file"
        return float(r["requests"]), "requests"

    steps = list(zip(sizes, sizes[1:]))
    head = ["command", "data"] + [f"{s}: data, wall s, RSS MB" for s in sizes]
    head += [f"{a}→{b}: data ×, wall ×, RSS ×" for a, b in steps] + ["no faster than linear?"]
    out = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(sizes) + len(steps)) + "---|"]
    for name in ORDER:
        if not all((s, name) in med for s in sizes):
            continue
        unit = data(sizes[-1], name)[1]
        cells = [SHOWN[name], unit]
        for s in sizes:
            d = data(s, name)[0]
            r = med[(s, name)]
            cells.append(f"{d:,.1f}, {r['wall']:.2f}, {r['rss'] / 1024:.0f}" if unit != "requests"
                         else f"{d:,.0f}, {r['wall']:.2f}, {r['rss'] / 1024:.0f}")
        verdicts = []
        for a, b in steps:
            da, db = data(a, name)[0], data(b, name)[0]
            ra, rb = med[(a, name)], med[(b, name)]
            grow_d = db / da if da else float("inf")
            grow_w, grow_r = rb["wall"] / ra["wall"], rb["rss"] / ra["rss"]
            cells.append(f"×{grow_d:.1f}, ×{grow_w:.1f}, ×{grow_r:.1f}")
            verdicts.append(f"{a}→{b} {'yes' if grow_w <= grow_d and grow_r <= grow_d else 'no'}")
        cells.append("; ".join(verdicts))
        out.append("| " + " | ".join(cells) + " |")
    return ("Scaling (medians; data is what the command must read: MB the client received, the snapshot file, "
            "or requests where no bytes are measured; sizes may come from separate runs):\n\n" + "\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--raw", required=True)
    parser.add_argument("--sizes", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--label", required=True, help="replaces the block of an earlier run with this label")
    parser.add_argument("--qps-min", help="size, command, seconds the client-side limits in force allow at least")
    parser.add_argument("--source", help="the source tree the binaries were built from (its commit is reported)")
    parser.add_argument("--scaling-raw", action="append", default=[],
                        help="raw rows of every size measured so far (repeatable), for the scaling table")
    parser.add_argument("--scaling-sizes", action="append", default=[], help="their sizes files (repeatable)")
    args = parser.parse_args()
    text, scen = table(args.raw, args.sizes, args.qps_min)
    grow = scaling(args.scaling_raw or [args.raw], args.scaling_sizes or [args.sizes])
    runs = max(int(l.split("\t")[2]) for l in open(args.raw))
    block = (f"### Sizes {args.label}\n\nMachine: {machine(args.source)}.\nScenarios: {scen}.\nMedian of up to {runs} alternating runs per command; "
             f"MB is what the client received (gzip as negotiated), measured by replaying its URLs with curl. "
             f"The QPS minimum is the least time the client-side limits in force allow: writes 20 QPS / burst 40; "
             f"reads are not limited, as fakekube sends the API Priority and Fairness headers that lift the read limit.\n\n{text}\n"
             + (f"\n{grow}" if grow else ""))
    print(block)
    begin, end = f"<!-- bench {args.label} begin -->", f"<!-- bench {args.label} end -->"
    old = open(args.results).read() if os.path.exists(args.results) else f"# Benchmark results\n\n{begin}\n{end}\n"
    if begin not in old:
        old += f"\n{begin}\n{end}\n"
    head, rest = old.split(begin, 1)
    open(args.results, "w").write(head + begin + "\n" + block + end + rest.split(end, 1)[1])


if __name__ == "__main__":
    main()
