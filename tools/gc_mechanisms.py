#!/usr/bin/env python3
"""Each candidate GC cost of issue 29, tried on every reference drive's
steady-state figure: one run per (drive, mechanism), the configs as they are
plus the mechanism's `--set`. Prints a markdown table (docs/RESULTS.md,
"Each mechanism on each drive").

Usage: python3 tools/gc_mechanisms.py [--build build] [--out results/mechanisms]
                                      [--drives NAME,...] [--mechanisms NAME,...]
A run whose summary.json exists is read, not rerun (delete the folder to
rerun it). The SN700 is left out: its steady-state procedure (G) takes most
of an hour per run.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402  (the procedures' figure readers)

ROOT = validate.ROOT

# The figure each drive is judged on, its workload, and how to read it.
# (name, drive config, extra sets, workload, reader, review figure)
def _consistency(out, summary):
    iops, ph = validate._steady_score(summary)
    series = validate._series(os.path.join(out, "consistency.csv"))
    t, start = validate._transition_s(series)
    moves = ph["ftl"]["gc_moved_pages"] / max(1, ph["write"]["bytes"] / 4096)
    spare = f"{t / 60:.1f} min" if t is not None else "none"
    return f"{iops:,.0f} IOPS, WA {ph['write_amplification']:.2f}, {moves:.2f} moves/write, spare out {spare}"


def _recovery(_, summary):
    r = summary["recovery"]
    ph = next(p for p in summary["phases"] if p["name"] == "steady")
    moves = ph["ftl"]["gc_moved_pages"] / max(1, ph["write"]["bytes"] / 4096)
    return (f"steady {r['steady_iops']:,.0f} IOPS ({moves:.2f} moves/write), "
            f"recovered {r['recovered_iops']:,.0f} of FOB {r['fob_iops']:,.0f}")


FACTS_TPROG = ["drive.nand.timing.tlc.tPROG=[0.5ms,1.5ms,3.5ms]"]
DRIVES = {
    "m500": ("crucial_m500_480gb", [], "consistency", _consistency, "AnandTech ~2,500 IOPS"),
    "m500dc": ("micron_m500dc_480gb", [], "consistency", _consistency, "spec 35K, AnandTech ~40K"),
    "wdblack": ("wd_black_512gb_2017", [], "consistency", _consistency,
                "spare out ~4 min, then ~1k-10k IOPS"),
    "wdblack_facts": ("wd_black_512gb_2017", FACTS_TPROG, "consistency", _consistency,
                      "same, tPROG from facts"),
    "sn500": ("wd_sn500_250gb", [], "degrade_recover", _recovery, "recovered within 15% of FOB"),
    "blue3d": ("wd_blue_3d_1tb", [], "degrade_recover", _recovery, "prediction"),
}

# Each mechanism's `--set`s per drive. Firmware time per GC move where the
# config has none: the spec sheet's random-write IOPS over the cores, the
# time per write command (a move's validity check, map update and program
# queueing are a write command's work without the host transfer).
MOVE_TIME = {"wd_black_512gb_2017": "22us", "wd_sn500_250gb": "17.6us", "wd_blue_3d_1tb": "23.8us"}
MECHANISMS = {
    "none": lambda d: [],
    "gc_move_time": lambda d: ([f"drive.controller.gc_move_time={MOVE_TIME[d]}"] if d in MOVE_TIME else None),
    "whole_page_reads": lambda d: ["drive.ftl.gc.whole_page_reads=true"],
    "single_plane_gc": lambda d: ["drive.ftl.gc.multi_plane_programs=false"],
    "map_checkpoint_1GiB": lambda d: ["drive.ftl.power_loss.map_checkpoint_every=1GiB"],
    "reserve_24": lambda d: ["drive.ftl.gc.trigger_free_blocks=24"],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "mechanisms"))
    ap.add_argument("--drives", default=",".join(DRIVES))
    ap.add_argument("--mechanisms", default=",".join(MECHANISMS))
    args = ap.parse_args()
    print("| drive (figure) | mechanism | result | wall s |")
    print("|---|---|---|---|")
    for dname in args.drives.split(","):
        drive, base, workload, read, ref = DRIVES[dname]
        for mname in args.mechanisms.split(","):
            sets = MECHANISMS[mname](drive)
            if sets is None:
                continue  # the config already sets it
            out = os.path.join(args.out, dname, mname)
            summary_path = os.path.join(out, "summary.json")
            if not os.path.exists(summary_path):
                cmd = [os.path.join(args.build, "ssdtwin"), "run", "-q",
                       "--drive", os.path.join(ROOT, "configs", "drives", drive + ".yaml"),
                       "--workload", os.path.join(ROOT, "configs", "workloads", workload + ".yaml"),
                       "--out", out]
                for s in base + sets:
                    cmd += ["--set", s]
                subprocess.run(cmd, check=True)
            with open(summary_path) as f:
                summary = json.load(f)
            print(f"| {dname} ({ref}) | {mname} | {read(out, summary)} | "
                  f"{summary['run']['wall_seconds']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
