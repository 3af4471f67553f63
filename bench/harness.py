#!/usr/bin/env python3
"""The bench scripts' one harness: how a command is timed, how repeated
runs are summarised, and how a run's own figures are read back.

Every speed figure in docs/RESULTS.md comes through here, so that they are
measured the same way: the whole process under /usr/bin/time (wall, user +
system CPU seconds, peak RSS), repeated, and quoted as the median with the
min-max range. Two commands are compared in interleaved pairs (A, B, A, B,
...): the ratio pair by pair keeps its meaning when the machine's speed
drifts, which seconds from different runs or machines do not.

  bench/harness.py paired [-n PAIRS] [-w WARMUP] [-c CPU] [--cold S] [--row LABEL] 'COMMAND A' 'COMMAND B'
      the medians and ranges of both commands and of the ratio A/B (--row:
      as one markdown table row; --cold: S seconds of sleep, not timed,
      before every run, so that each starts as a user's run does)
  bench/harness.py time [-n RUNS] [-c CPU] [--summary DIR] [--label L] [--ref SECONDS] -- COMMAND
      one table row: wall median (range), the ratio REF / wall, peak memory,
      and with --summary the set-up and host-IO rate the run's summary.json
      records (`ssdtwin run --out DIR`)
  bench/harness.py field SUMMARY_JSON KEY.PATH [...]
      values read from a summary.json (dotted paths, `phases.-1.name`)

Back-to-back runs can flatter a change in how memory is handed out: on a
virtual machine whose balloon returns freed memory to its host, a run that
starts right after another reuses pages the host still backs, while one
that starts a few seconds later pays the host's faults too (huge pages most:
docs/RESULTS.md, "Against MQSim"). `--cold 3` measures the second case.

The shell scripts beside it (paired.sh, pinned_rows.sh, mqsim_rows.sh,
mqsim_side_by_side.sh, run_bench.sh, setup_memory.sh, sweep_bench.sh) only
say what to run.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


class Failed(Exception):
    pass


def measure(command, cpu=None):
    """Runs `sh -c command` once; returns (wall s, cpu s, peak MiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        argv = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", t.name, "sh", "-c", command]
        if cpu is not None:
            argv = ["taskset", "-c", str(cpu)] + argv
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise Failed(f"failed (exit {p.returncode}): {command}\n{p.stderr}")
        line = [l for l in t.read().splitlines() if l[:1].isdigit()][-1]
    wall, user, system, peak_kib = (float(x) for x in line.split())
    return wall, user + system, peak_kib / 1024


def ratio(x, y):
    """x / y; not a number when y rounds to 0 (a run under /usr/bin/time's 10 ms)."""
    return x / y if y > 0 else float("nan")


def spread(xs, fmt="{:.3f}"):
    """'median (min-max)', or the single value."""
    m = fmt.format(statistics.median(xs))
    return m if len(xs) == 1 else f"{m} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def field(doc, path):
    for k in path.split("."):
        doc = doc[int(k)] if isinstance(doc, list) else doc[k]
    return doc


def cmd_paired(a):
    runs = {"A": [], "B": []}
    for i in range(a.warmup + a.pairs):
        for tag, c in (("A", a.command_a), ("B", a.command_b)):
            if a.cold > 0:
                time.sleep(a.cold)
            r = measure(c, a.cpu)
            if i >= a.warmup:
                runs[tag].append(r)

    pairs = list(zip(runs["A"], runs["B"]))
    if a.row:
        med = statistics.median
        a_, b_ = runs["A"], runs["B"]
        r = [ratio(x[0], y[0]) for x, y in pairs]
        print(f"| {a.row} | {med([x[0] for x in a_]):.2f} s ({med([x[1] for x in a_]):.2f} s) "
              f"| {med([x[0] for x in b_]):.3f} s ({med([x[1] for x in b_]):.3f} s) "
              f"| {med(r):.1f}x ({min(r):.1f}-{max(r):.1f}) "
              f"| {med([x[2] for x in a_]):.0f} / {med([x[2] for x in b_]):.0f} |")
        return

    def line(name, xs, fmt="{:.3f}"):
        med = fmt.format(statistics.median(xs))
        print(f"{name:10} median {med}  min {fmt.format(min(xs))}  max {fmt.format(max(xs))}")

    for tag in ("A", "B"):
        r = runs[tag]
        line(tag + " wall s", [x[0] for x in r])
        line(tag + " cpu s", [x[1] for x in r])
        line(tag + " peak MiB", [x[2] for x in r], "{:.1f}")
    line("A/B wall", [ratio(x[0], y[0]) for x, y in pairs], "{:.4f}")
    line("A/B cpu", [ratio(x[1], y[1]) for x, y in pairs], "{:.4f}")


def cmd_time(a):
    command = " ".join(shlex.quote(x) for x in a.command)
    walls, peaks, builds, rates = [], [], [], []
    ios = None
    for _ in range(a.runs):
        wall, _, peak = measure(command, a.cpu)
        walls.append(wall)
        peaks.append(peak)
        if a.summary:
            run = json.load(open(os.path.join(a.summary, "summary.json")))["run"]
            builds.append(run["build_seconds"])
            rates.append(run["host_ios_per_wall_second"])
            ios = run["host_ios"]
    w = statistics.median(walls)
    cells = [a.label or command]
    if a.ref is not None:
        cells.append(f"{a.ref:g} s" if a.ref else "-")
    cells.append(spread(walls, "{:.2f}") + " s")
    if a.ref is not None:
        cells.append(f"{ratio(a.ref, w):.1f}x" if a.ref else "-")
    if a.summary:
        cells.append(f"{statistics.median(builds):.2f} s")
        cells.append(f"{ratio(ios, w) / 1e3:,.0f} k; {statistics.median(rates) / 1e3:,.0f} k")
    cells.append(f"{statistics.median(peaks):,.0f} MiB")
    cells.append(f"`{command}`")
    print("| " + " | ".join(cells) + " |")


def cmd_field(a):
    doc = json.load(open(a.summary_json))
    print(" ".join(str(field(doc, p)) for p in a.path))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("paired", help="two commands in interleaved pairs")
    s.add_argument("-n", dest="pairs", type=int, default=5)
    s.add_argument("-w", dest="warmup", type=int, default=1)
    s.add_argument("-c", dest="cpu", type=int, help="pin both to this CPU (taskset)")
    s.add_argument("--cold", metavar="S", type=float, default=0,
                   help="sleep S seconds (not timed) before every run")
    s.add_argument("--row", metavar="LABEL",
                   help="print one table row: LABEL | A wall (CPU) | B wall (CPU) | A/B | peaks")
    s.add_argument("command_a")
    s.add_argument("command_b")
    s.set_defaults(run=cmd_paired)
    s = sub.add_parser("time", help="one command, repeated: a table row")
    s.add_argument("-n", dest="runs", type=int, default=3)
    s.add_argument("-c", dest="cpu", type=int)
    s.add_argument("--summary", help="the run's --out folder (its summary.json)")
    s.add_argument("--label")
    s.add_argument("--ref", type=float, help="a reference in seconds (0: none): REF / wall")
    s.add_argument("command", nargs=argparse.REMAINDER)
    s.set_defaults(run=cmd_time)
    s = sub.add_parser("field", help="values from a summary.json")
    s.add_argument("summary_json")
    s.add_argument("path", nargs="+")
    s.set_defaults(run=cmd_field)
    a = p.parse_args()
    if getattr(a, "command", None) and a.command[0] == "--":
        a.command = a.command[1:]
    try:
        a.run(a)
    except Failed as e:
        print(f"{os.path.basename(sys.argv[0])}: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
