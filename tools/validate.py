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
# Predictions: reported, never checked (the config is built from facts alone).
PREDICTIONS = [
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "slc_cache_gb")),
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "cached_mb_per_s")),
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "last16gb_mb_per_s")),
    ("wd_blue_3d_1tb", "whole_drive_fill", ("fill", "overall_mb_per_s")),
]


def run(build, out_root, drive, workload, cache):
    key = (drive, workload)
    if key not in cache:
        out = os.path.join(out_root, drive, workload)
        cmd = [os.path.join(build, "ssdtwin"), "run", "-q",
               "--drive", os.path.join(ROOT, "configs", "drives", drive + ".yaml"),
               "--workload", os.path.join(ROOT, "configs", "workloads", workload + ".yaml"),
               "--out", out]
        subprocess.run(cmd, check=True)
        with open(os.path.join(out, "summary.json")) as f:
            cache[key] = json.load(f)
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
        s = run(args.build, args.out, drive, wl, cache)
        v = get(s, path)
        ok = lo <= v <= hi
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {drive:16s} {wl:18s} {'.'.join(path):24s} "
              f"simulated {v:9.2f}  reference {ref:8.2f}  accepted [{lo:.2f}, {hi:.2f}]  "
              f"wall {s['run']['wall_seconds']:.1f} s  ({source})")
    for drive, wl, path in PREDICTIONS:
        s = run(args.build, args.out, drive, wl, cache)
        print(f"pred {drive:16s} {wl:18s} {'.'.join(path):24s} simulated {get(s, path):9.2f}  "
              f"wall {s['run']['wall_seconds']:.1f} s")
    print(f"{len(CHECKS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
