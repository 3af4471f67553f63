#!/usr/bin/env python3
"""Validation against the reference drives (../shared/reference/drives.md).

Runs the review procedures on the real drive configs and compares the
simulated figures with the published ones. Not part of the default test run
(whole drives take seconds to minutes each): `ctest -L validation` or
`python3 tools/validate.py [--build build]`. Exit status 1 if a figure is
outside its tolerance.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (drive config, workload, figure path in summary.json, reference, low, high, source)
CHECKS = [
    ("wd_sn500_250gb", "whole_drive_fill", ("fill", "slc_cache_gb"), 3.0, 2.0, 4.5,
     "AnandTech 2019: SLC cache about 3 GB"),
    ("wd_sn500_250gb", "whole_drive_fill", ("fill", "last16gb_mb_per_s"), 432.0, 432 * 0.85,
     432 * 1.15, "AnandTech 2019: last 16 GB average about 432 MB/s"),
]
# Working-set curves (procedure B): (drive, overrides, label, check(rows) -> (ok, text), source)
def _ws_rows(path):
    with open(path) as f:
        next(f)
        return [tuple(float(x) for x in line.split(",")) for line in f if line.strip()]


def _iops_at(rows, span):
    return next(r[1] for r in rows if abs(r[0] - span) < 1e-6)


def knee_between_2_and_8(rows):
    base = _iops_at(rows, 1.0)
    flat4 = _iops_at(rows, 4.0) >= 0.9 * base
    drop8 = _iops_at(rows, 8.0) < 0.9 * base
    floor = rows[-1][1] <= min(r[1] for r in rows) * 1.001
    return flat4 and drop8 and floor, (f"1 GB {base:.0f}, 4 GB {_iops_at(rows, 4.0):.0f}, "
                                       f"8 GB {_iops_at(rows, 8.0):.0f}, full {rows[-1][1]:.0f} IOPS")


def flat_to_24gb(rows):
    base = _iops_at(rows, 1.0)
    ok = all(r[1] >= 0.9 * base for r in rows if r[0] <= 24.0)
    return ok, (f"1 GB {base:.0f}, 24 GB {_iops_at(rows, 24.0):.0f}, 64 GB {_iops_at(rows, 64.0):.0f} "
                f"({100 * (_iops_at(rows, 64.0) / base - 1):+.0f}%), full {rows[-1][1]:.0f} "
                f"({100 * (rows[-1][1] / base - 1):+.0f}%) IOPS")


def flat_everywhere(rows):
    lo, hi = min(r[1] for r in rows), max(r[1] for r in rows)
    return lo >= 0.95 * hi, f"min {lo:.0f}, max {hi:.0f} IOPS over {len(rows)} spans"


WORKING_SET = [
    ("wd_sn500_250gb", [], "SRAM 4 MB", knee_between_2_and_8,
     "AnandTech 2019: flat to about 4 GB, then declining (knee 2-8 GB)"),
    ("wd_sn500_250gb", ["drive.ftl.map_cache.location=hmb", "drive.ftl.map_cache.size=38MB"],
     "HMB 38 MB", flat_to_24gb, "RC100-like 38 MB HMB: flat to at least 24 GB"),
    ("crucial_m500_480gb", [], "DRAM 512 MB", flat_everywhere, "DRAM drive: flat across all spans"),
]

# Predictions: reported, never checked (the config is built from facts alone).
PREDICTIONS = [
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "slc_cache_gb")),
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "cached_mb_per_s")),
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "last16gb_mb_per_s")),
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "overall_mb_per_s")),
]


def run(build, out_root, drive, workload, cache, sets=()):
    key = (drive, workload, tuple(sets))
    if key not in cache:
        out = os.path.join(out_root, drive + ("_" + "_".join(s.split("=")[1] for s in sets) if sets else ""),
                           workload)
        cmd = [os.path.join(build, "ssdtwin"), "run", "-q",
               "--drive", os.path.join(ROOT, "configs", "drives", drive + ".yaml"),
               "--workload", os.path.join(ROOT, "configs", "workloads", workload + ".yaml"),
               "--out", out]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True)
        with open(os.path.join(out, "summary.json")) as f:
            cache[key] = (json.load(f), out)
    return cache[key]


def get(summary, path):
    for p in path:
        summary = summary[p]
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "validation"))
    args = ap.parse_args()
    cache, failed = {}, 0
    for drive, wl, path, ref, lo, hi, source in CHECKS:
        s, _ = run(args.build, args.out, drive, wl, cache)
        v = get(s, path)
        ok = lo <= v <= hi
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {drive:16s} {wl:18s} {'.'.join(path):24s} "
              f"simulated {v:9.2f}  reference {ref:8.2f}  accepted [{lo:.2f}, {hi:.2f}]  "
              f"wall {s['run']['wall_seconds']:.1f} s  ({source})")
    for drive, sets, label, check, source in WORKING_SET:
        s, out = run(args.build, args.out, drive, "working_set", cache, sets)
        ok, text = check(_ws_rows(os.path.join(out, "working_set.csv")))
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {drive:16s} working_set {label:12s} {text}  "
              f"wall {s['run']['wall_seconds']:.1f} s  ({source})")
    for drive, wl, path in PREDICTIONS:
        s, _ = run(args.build, args.out, drive, wl, cache)
        print(f"pred {drive:16s} {wl:18s} {'.'.join(path):24s} simulated {get(s, path):9.2f}  "
              f"wall {s['run']['wall_seconds']:.1f} s")
    print(f"{len(CHECKS) + len(WORKING_SET) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
