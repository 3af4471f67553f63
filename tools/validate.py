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
    # ATTO: the peak over transfer sizes (one phase per size).
    ("crucial_m500_480gb", "atto", ("peak", "write", "mb_per_s"), 443.0, 443 * 0.9, 443 * 1.1,
     "ATTO QD4 2013: 443 MB/s sequential write (sets the M500's program time)"),
    ("crucial_m500_480gb", "atto", ("peak", "read", "mb_per_s"), 528.0, 528 * 0.9, 528 * 1.1,
     "ATTO QD4 2013: 528 MB/s sequential read"),
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

# Steady-state procedures (C, D, F): (drive, workload, label, check(out_dir, summary) -> (ok, text), source)
def _series(path, col=1):
    with open(path) as f:
        next(f)
        # Latency columns are empty for a second with no completion: 0.
        return [float(line.strip().split(",")[col] or 0) for line in f if line.strip()]


def _pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def _transition_s(iops, window=10, drop=0.5):
    # First second whose trailing `window`-second average falls below `drop`
    # times the first minute's: where the spare area ran out.
    start = sum(iops[:60]) / 60
    for i in range(window, len(iops)):
        if sum(iops[i - window:i]) / window < drop * start:
            return i - window // 2, start
    return None, start


def _gc_beside(summary, name=None):
    # Issue 29: GC moves beside every steady-state figure. A "steady" figure
    # with none is the fresh drive's plateau, not the state GC holds it in.
    timed = [ph for ph in summary["phases"] if not ph.get("precondition") and not ph.get("fast")]
    ph = next(p for p in timed if p["name"] == name) if name else timed[-1]
    moved, writes = ph["ftl"]["gc_moved_pages"], ph["write"]["bytes"] / 4096
    return f"; GC moved {moved / 1e6:.1f} M pages in phase {ph['name']} ({moved / max(1, writes):.2f} per 4 KiB written)"


def wd_black_consistency(out, summary):
    iops = _series(os.path.join(out, "consistency.csv"))
    t, start = _transition_s(iops)
    if t is None:
        return False, f"no transition in {len(iops)} s (start {start:.0f} IOPS)"
    steady = iops[t + 60:]
    # "Swing between just under 1k and just over 10k": the per-second
    # extremes, taken as the 2nd and 98th percentiles so that one odd
    # second does not decide.
    low, p50, high = _pct(steady, 0.02), _pct(steady, 0.5), _pct(steady, 0.98)
    ok = 150 <= t <= 360 and 500 <= low <= 1500 and 7000 <= high <= 14000
    return ok, (f"{start:.0f} IOPS, spare out at {t / 60:.1f} min, then per second p2/p50/p98 "
                f"{low:.0f}/{p50:.0f}/{high:.0f} IOPS" + _gc_beside(summary))


def wd_black_op25(out, summary):
    iops = _series(os.path.join(out, "consistency.csv"))
    t, start = _transition_s(iops)
    after = iops[t + 60:] if t is not None else []
    inside = sum(10000 <= x <= 30000 for x in after) / max(1, len(after))
    ok = 33000 * 0.75 <= start <= 33000 * 1.25 and t is not None and inside >= 0.6
    return ok, (f"{start:.0f} IOPS before the transition (ref ~33k), transition at "
                f"{(t or 0) / 60:.1f} min, {100 * inside:.0f}% of later seconds in 10k-30k"
                + _gc_beside(summary))


def m500_fill100(out, summary):
    iops = _series(os.path.join(out, "latency.csv"))
    max_us = _series(os.path.join(out, "latency.csv"), 4)
    avg10 = [sum(iops[i:i + 10]) / 10 for i in range(0, len(iops) - 10)]
    low = min(avg10)
    t_low = avg10.index(low)
    late = sum(iops[-200:]) / 200
    worst = max(max_us[t_low:]) / 1000
    ok = 600 <= low <= 2400 and late > low and worst >= 50
    return ok, (f"bottom {low:.0f} IOPS (10 s average) at {t_low} s, last 200 s {late:.0f} IOPS, "
                f"worst write latency after the bottom {worst:.0f} ms" + _gc_beside(summary))


def m500_fill75(out, _):
    iops = _series(os.path.join(out, "latency.csv"))
    p99 = _series(os.path.join(out, "latency.csv"), 3)
    # At 75% fill the drive is link-bound before and GC-bound after: the
    # drop is smaller than at 100%, so a sustained 20% fall marks it.
    t, start = _transition_s(iops, drop=0.8)
    before = p99[5:t] if t else p99[5:]
    after = p99[t + 60:] if t else []
    ok = t is not None and _pct(before, 0.5) < 5000 and (not after or _pct(after, 0.5) > 2 * _pct(before, 0.5))
    return ok, (f"p99 median {_pct(before, 0.5) / 1000:.2f} ms until the free blocks run out at "
                f"{(t or 0)} s, then {(_pct(after, 0.5) / 1000 if after else 0):.2f} ms")


def _hwinfo_minutes(out):
    # Read + write MB/s per minute of the mixed phase.
    rows = []
    with open(os.path.join(out, "timeseries.csv")) as f:
        next(f)
        for line in f:
            c = line.strip().split(",")
            if c[0] == "mixed":
                rows.append(float(c[2]) + float(c[3]))
    return [sum(rows[i:i + 60]) / len(rows[i:i + 60]) for i in range(0, len(rows), 60)]


def m500_hwinfo_full_speed(out, _):
    mins = _hwinfo_minutes(out)
    drop = next((i for i, m in enumerate(mins) if m < 0.8 * mins[0]), None)
    ok = drop is not None and 9 <= drop <= 13
    return ok, (f"{mins[0]:.0f} MB/s (read + write) until minute {drop} of {len(mins)}")


def m500_hwinfo_depth(out, _):
    mins = _hwinfo_minutes(out)
    ratio = sum(mins[-3:]) / 3 / mins[0]
    return 0.2 <= ratio <= 0.5, f"last 3 minutes at {100 * ratio:.0f}% of the first"


def _steady_score(summary):
    ph = next(p for p in summary["phases"] if "consistency" in p)
    return ph["consistency"]["average_iops"], ph


def m500dc_steady(_, summary):
    # Spec 35K (enterprise specs are steady state), AnandTech ~40K: the band
    # between them, widened by 20% each way.
    iops, ph = _steady_score(summary)
    ok = 35000 * 0.8 <= iops <= 40000 * 1.2
    return ok, (f"steady state (last 400 s) {iops:.0f} IOPS, write amplification "
                f"{ph['write_amplification']:.2f}" + _gc_beside(summary, ph["name"]))


def m500_steady(_, summary):
    # AnandTech (M550 review, 2014): about 2,500 IOPS from t = 1400 s on.
    iops, ph = _steady_score(summary)
    ok = 2500 * 0.5 <= iops <= 2500 * 1.5
    return ok, (f"steady state (last 400 s) {iops:.0f} IOPS, write amplification "
                f"{ph['write_amplification']:.2f}" + _gc_beside(summary, ph["name"]))


def spec_steady(spec_iops):
    # An enterprise spec sheet's random-write IOPS is a steady-state figure:
    # within 20% of it after twice the capacity of random writes.
    def check(_, summary):
        ph = next(p for p in summary["phases"] if p["name"] == "randwrite")
        iops = ph["write"]["iops"]
        return abs(iops / spec_iops - 1) <= 0.2, (
            f"{iops:.0f} IOPS ({100 * (iops / spec_iops - 1):+.0f}% of the spec's {spec_iops / 1000:.0f}K), "
            f"write amplification {ph['write_amplification']:.2f}" + _gc_beside(summary, ph["name"]))
    return check


def load_curve_shape(_, summary):
    # Procedure G's mechanics on a drive whose other figures match: while
    # the offered rate is below 90% of where the curve flattens, the drive
    # does what is offered (a write profile can flatten below its
    # closed-loop maximum once its cache or spare is used up); no step beats
    # the maximum by more than run-to-run noise; latency rises along it.
    rows = summary["load_curve"]["steps"]
    bad = []
    for prof in sorted({r["profile"] for r in rows}):
        steps = [r for r in rows if r["profile"] == prof]
        top = next(r for r in steps if r["step"] == "max")["iops"]
        curve = [r for r in steps if r["step"] != "max"]
        flat = max(r["iops"] for r in curve)
        follows = all(abs(r["iops"] / r["offered_iops"] - 1) <= 0.1
                      for r in curve if r["offered_iops"] <= 0.9 * flat)
        capped = all(r["iops"] <= 1.05 * top for r in curve)
        rises = curve[-1]["mean_latency_us"] > curve[0]["mean_latency_us"]
        if not (follows and capped and rises):
            bad.append(prof)
    peaks = summary["load_curve"]["peaks"]
    return not bad, (f"{len(peaks)} profiles; 4K read peak {peaks['4k_random_read']['iops']:.0f} IOPS "
                     f"at {peaks['4k_random_read']['mean_latency_us']:.0f} us, 4K write "
                     f"{peaks['4k_random_write']['iops']:.0f} at "
                     f"{peaks['4k_random_write']['mean_latency_us']:.0f} us"
                     + (f"; wrong shape: {', '.join(bad)}" if bad else ""))


def seq2x_gc_dips(_, summary):
    # Procedure F: once every block has been written, GC shows as regular
    # downward spikes; a dip is a second below 80% of the phase's average.
    bw = next(ph for ph in summary["phases"] if ph["name"] == "seqwrite")["bandwidth"]
    avg, low = bw["average_mb_per_s"], bw["min_interval_mb_per_s"]
    return low < 0.8 * avg, f"average {avg:.1f} MB/s, slowest second {low:.1f} MB/s ({100 * low / avg:.1f}%)"


def recovers_within_15pct(_, summary):
    r = summary["recovery"]
    ratio = r["recovered_over_fob"]
    gc = {row["role"]: row["gc_moved_pages"] for row in r["phases"]}
    return ratio >= 0.85, (f"FOB {r['fob_iops']:.0f}, steady {r['steady_iops']:.0f}, recovered "
                           f"{r['recovered_iops']:.0f} IOPS ({100 * ratio:.0f}% of FOB); steady at "
                           f"{r['degrade_steady_at_s']} s; GC moved {gc.get('degrade', 0) / 1e6:.1f} M pages "
                           f"while degrading, {gc.get('steady', 0) / 1e6:.2f} M in the steady phase")


STEADY_STATE = [
    ("wd_black_512gb_2017", "consistency", "C: 1 h 4K QD32", wd_black_consistency,
     "AnandTech 2017: spare out about 4 min in (2.5-6), then ~1k-10k IOPS"),
    ("wd_black_512gb_2017", "consistency_op25", "C: 25% OP", wd_black_op25,
     "AnandTech 2017: ~33k IOPS before the transition (within 25%), then mostly 10k-30k"),
    ("crucial_m500_480gb", "consistency_fill100", "D: 100% fill", m500_fill100,
     "TweakTown 2013: bottoms near 1,200 IOPS (600-2,400), recovers slowly, latency >= 50 ms "
     "[known miss: see docs/RESULTS.md]"),
    # Issue 29: the M500 and the M500DC share controller, flash and firmware
    # values; only raw NAND (spare area) and the RAIN stripe differ.
    ("micron_m500dc_480gb", "consistency", "C: steady state", m500dc_steady,
     "spec 35K, AnandTech 2014 ~40K IOPS at steady state (within 20%)"),
    # The 480's controller, flash and firmware values on the line's other
    # capacities (AnandTech lineup: raw NAND from the 42% set aside, RAIN
    # 11:1 up to 480 GB, 15:1 on the 800 GB): checks of gc_move_time on
    # spec figures it was not derived from.
    ("micron_m500dc_480gb", "spec_steady_randwrite", "spec steady, 240 GB", spec_steady(33000),
     "spec 33K IOPS 4K random write, steady state (within 20%)",
     ["drive.user_capacity=240GB", "drive.nand.dies_per_channel=3"]),
    ("micron_m500dc_480gb", "spec_steady_randwrite", "spec steady, 800 GB", spec_steady(24000),
     "spec 24K IOPS 4K random write, steady state (within 20%) "
     "[known miss: see docs/RESULTS.md, issue 29]",
     ["drive.user_capacity=800GB", "drive.nand.dies_per_channel=8", "drive.ftl.rain.stripe=16"]),
    ("crucial_m500_480gb", "consistency", "C: steady state", m500_steady,
     "AnandTech 2014 (M550 review): ~2,500 IOPS at steady state (1,250-3,750) "
     "[known miss: see docs/RESULTS.md, issue 29]"),
    ("crucial_m500_480gb", "consistency_fill75", "D: 75% fill", m500_fill75,
     "TweakTown 2013: latency low until the free blocks run out"),
    ("crucial_m500_480gb", "mixed_load_hwinfo", "mixed load: onset", m500_hwinfo_full_speed,
     "hardware.info 2013: full speed for about 11 minutes (9-13)"),
    ("crucial_m500_480gb", "mixed_load_hwinfo", "mixed load: depth", m500_hwinfo_depth,
     "hardware.info 2013: then about a third of it (20-50%) [known miss: see docs/RESULTS.md]"),
    ("crucial_m500_480gb", "seq_write_2x", "F: 2x seq write", seq2x_gc_dips,
     "Myce-style procedure F: regular downward GC spikes in the second pass "
     "[known miss: see docs/RESULTS.md, issue 11 item 2]"),
    # Item 6: the WD Black's TLC program time from public facts (SanDisk 19 nm
    # X3 at 18 MB/s per die; 15 nm the same) instead of the ledger's fit.
    ("wd_black_512gb_2017", "consistency", "C: tPROG from facts", wd_black_consistency,
     "AnandTech 2017 with tPROG 0.5/1.5/3.5 ms: spare out about 4 min in, then ~1k-10k IOPS "
     "[known miss: see docs/RESULTS.md, issue 11 item 6]",
     ["drive.nand.timing.tlc.tPROG=[0.5ms,1.5ms,3.5ms]"]),
    ("wd_sn500_250gb", "degrade_recover", "F: degrade/recover", recovers_within_15pct,
     "Myce-style: after TRIM and 5 min rest, within 15% of FOB"),
    ("wd_sn500_250gb", "load_curve", "G: load curve", load_curve_shape,
     "StorageReview-style: follows the offered rate to saturation, then flattens"),
    ("crucial_m500_480gb", "load_curve", "G: load curve", load_curve_shape,
     "StorageReview-style: follows the offered rate to saturation, then flattens"),
]

# Predictions: reported, never checked (the config is built from facts alone).
# (drive, overrides, workload, path, label); a path ("phase", NAME, ...) reads
# a figure of the named phase.
_M500_DIES = [  # same over-provisioning ratio: 15 GB of user capacity per die
    (8, ["drive.nand.dies_per_channel=1", "drive.user_capacity=120GB"]),
    (16, ["drive.nand.dies_per_channel=2", "drive.user_capacity=240GB"]),
    (64, ["drive.nand.dies_per_channel=8", "drive.user_capacity=960GB"]),
]
_FOB_PEAKS = [
    (("phase", "seqwrite", "write", "mb_per_s"), "128K seq write QD32 MB/s"),
    (("phase", "seqread", "read", "mb_per_s"), "128K seq read QD32 MB/s"),
    (("phase", "randwrite", "write", "iops"), "4K random write QD32 IOPS"),
    (("phase", "randread", "read", "iops"), "4K random read QD32 IOPS"),
]
_FOB_MATRIX = [
    (("phase", "seqread_128k_qd32", "read", "mb_per_s"), "F FOB: 128K seq read QD32 MB/s"),
    (("phase", "seqwrite_128k_qd32", "write", "mb_per_s"), "F FOB: 128K seq write QD32 MB/s"),
    (("phase", "randread_4k_qd1", "read", "iops"), "F FOB: 4K random read QD1 IOPS"),
    (("phase", "randread_4k_qd32", "read", "iops"), "F FOB: 4K random read QD32 IOPS"),
    (("phase", "randwrite_4k_qd1", "write", "iops"), "F FOB: 4K random write QD1 IOPS (1 GB)"),
    (("phase", "randwrite_4k_qd32", "write", "iops"), "F FOB: 4K random write QD32 IOPS (1 GB)"),
    (("phase", "randwrite64g_4k_qd32", "write", "iops"), "F FOB: 4K random write QD32 IOPS (64 GB)"),
    (("phase", "mix70_4k_qd32", "read", "iops"), "F FOB: 4K 70/30 QD32, read IOPS"),
]
# Procedure A's figures (whole_drive_fill), for each drive that predicts them.
_FILL = [
    (("fill", "slc_cache_gb"), "A: SLC cache GB"),
    (("fill", "cached_mb_per_s"), "A: MB/s in the cache"),
    (("fill", "last16gb_mb_per_s"), "A: last 16 GB MB/s"),
    (("fill", "overall_mb_per_s"), "A: whole fill MB/s"),
]


def _fill(drive):
    return [(drive, [], "whole_drive_fill", path, label) for path, label in _FILL]


PREDICTIONS = _fill("wd_blue_3d_1tb") + [
    ("wd_blue_3d_1tb", [], "fob_matrix", path, label) for path, label in _FOB_MATRIX] + [
    ("wd_blue_3d_1tb", [], "seq_write_2x", ("phase", "seqwrite", "bandwidth", "average_mb_per_s"),
     "F 2x seq write: average MB/s"),
    ("wd_blue_3d_1tb", [], "seq_write_2x", ("phase", "seqwrite", "bandwidth", "min_interval_mb_per_s"),
     "F 2x seq write: slowest second MB/s"),
    ("wd_blue_3d_1tb", [], "degrade_recover", ("recovery", "fob_iops"), "F: FOB 4K QD32 IOPS"),
    ("wd_blue_3d_1tb", [], "degrade_recover", ("recovery", "steady_iops"), "F: after 2x seq + random to steady, IOPS"),
    ("wd_blue_3d_1tb", [], "degrade_recover", ("recovery", "degrade_steady_at_s"), "F: steady state declared at s"),
    ("wd_blue_3d_1tb", [], "degrade_recover", ("phase", "degrade", "ftl", "gc_moved_pages"), "F: GC pages moved while degrading"),
    ("wd_blue_3d_1tb", [], "degrade_recover", ("phase", "steady", "ftl", "gc_moved_pages"), "F: GC pages moved in the steady phase"),
    ("wd_blue_3d_1tb", [], "degrade_recover", ("recovery", "recovered_iops"), "F: after TRIM + 5 min rest, IOPS"),
] + [("crucial_m500_480gb", sets, "fob_peaks", path, f"{dies} dies: {label}")
     for dies, sets in _M500_DIES for path, label in _FOB_PEAKS]
_LOAD_PROFILES = ["4k_random_read", "4k_random_write", "64k_seq_read", "64k_seq_write", "sql",
                  "sql_90_10", "sql_80_20", "oracle", "oracle_90_10", "oracle_80_20"]
# The fifth reference drive, WD Red SN700 4 TB: a prediction from public facts.
PREDICTIONS += _fill("wd_red_sn700_4tb") + [
    ("wd_red_sn700_4tb", [], "qd_sweep_fob", ("qd_max", "randread"), "E: FOB 4K random read, peak IOPS"),
    ("wd_red_sn700_4tb", [], "qd_sweep_fob", ("qd_max", "randwrite"), "E: FOB 4K random write, peak IOPS"),
] + [("wd_red_sn700_4tb", [], "load_curve", ("load_peak", prof, key), f"G: {prof} peak {label}")
     for prof in _LOAD_PROFILES for key, label in (("iops", "IOPS"), ("mean_latency_us", "latency us"))]

# Crucial P1 1 TB (issue 32, QLC): a prediction from public facts. Procedure A
# as AnandTech ran it (the whole drive, 1 GB segments) and procedure B (QD1
# 4 KiB random reads over growing spans after a full sequential fill).
_P1_SPANS = ["1GB", "8GB", "32GB", "128GB", "full"]
PREDICTIONS += _fill("crucial_p1_1tb") + [
    ("crucial_p1_1tb", [], "whole_drive_fill", ("fill", "after_cache_mb_per_s"), "A: MB/s after the cache"),
] + [("crucial_p1_1tb", [], "working_set", ("phase", f"span_{span}", "read", "iops"),
      f"B: 4K random read QD1, {span} span, IOPS") for span in _P1_SPANS]


def ledger():
    # The fitted-parameters ledger is kept once, in docs/RESULTS.md.
    lines, inside = [], False
    with open(os.path.join(ROOT, "docs", "RESULTS.md")) as f:
        for line in f:
            if line.startswith("## "):
                inside = line.startswith("## Fitted-parameters ledger")
                continue
            if inside and line.startswith("|") and not line.startswith("|---"):
                lines.append(line.rstrip())
    return lines


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
    if path[0] == "peak":  # the highest value of a phase figure over all phases
        return max(ph[path[1]][path[2]] for ph in summary["phases"])
    if path[0] == "qd_max":  # the highest IOPS of a queue-depth sweep
        return max(r["iops"] for r in summary["qd_sweep"] if r["sweep"] == path[1])
    if path[0] == "load_peak":  # a load-curve profile's peak
        return summary["load_curve"]["peaks"][path[1]][path[2]]
    if path[0] == "phase":  # a figure of the phase of that name
        summary = next(ph for ph in summary["phases"] if ph["name"] == path[1])
        path = path[2:]
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
    known = 0
    for drive, wl, label, check, source, *sets in STEADY_STATE:
        s, out = run(args.build, args.out, drive, wl, cache, sets[0] if sets else ())
        ok, text = check(out, s)
        # A figure the model is known not to reach is reported, not failed,
        # so the run still guards every other figure; it fails if it passes
        # unexpectedly, so the list is kept honest.
        miss = "known miss" in source
        status = ("ok  " if ok else "FAIL") if not miss else ("MISS" if not ok else "FAIL")
        known += miss and not ok
        failed += ok if miss else not ok
        print(f"{status} {drive:16s} {label:20s} {text}  "
              f"wall {s['run']['wall_seconds']:.1f} s  ({source})")
    print("Predictions: drives built from public facts alone, never compared with a measurement")
    for drive, sets, wl, path, label in PREDICTIONS:
        s, _ = run(args.build, args.out, drive, wl, cache, sets)
        value = get(s, path)  # None: not reached (e.g. no steady window)
        shown = f"{value:10.1f}" if value is not None else f"{'none':>10s}"
        print(f"pred {drive:18s} {wl:16s} {label:44s} simulated {shown}  "
              f"wall {s['run']['wall_seconds']:.1f} s")
    print("Fitted-parameters ledger (docs/RESULTS.md): config values set from a review figure")
    for line in ledger():
        print("  " + line)
    print(f"{len(CHECKS) + len(WORKING_SET) + len(STEADY_STATE) - failed - known} passed, "
          f"{failed} failed, {known} known misses")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
