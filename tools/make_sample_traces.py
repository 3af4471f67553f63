#!/usr/bin/env python3
"""Writes the small synthetic sample traces in traces/, one per format.

    python3 tools/make_sample_traces.py [OUT_DIR]      default: traces/

The traces are made up (no real system was traced): a few hundred IOs of a
mixed workload (4 KiB random reads and writes, some sequential 64-256 KiB
runs, trims, flushes, a few unaligned IOs) within the first 256 MiB, so they
replay on the 1 GB test drive with map: error. The same seed gives the same
bytes every time, gzip included (no timestamp in its header).
"""

import gzip
import os
import random
import sys

SEED = 6
SPAN = 256 << 20  # bytes addressed by the sample IOs
FILETIME_BASE = 128166372000000000  # 2007-02-22, in 100 ns ticks since 1601 (as in the MSR traces)


def workload(n, rng, ops=("read", "write", "trim", "flush"), unaligned=True):
    """n IOs as (time_ns, op, offset_bytes, length_bytes), time increasing."""
    ios = []
    t = 0
    seq_next = None
    for _ in range(n):
        t += int(rng.expovariate(1 / 200_000))  # mean gap 200 us
        r = rng.random()
        if seq_next is not None and rng.random() < 0.7:
            op, off, length = "write", seq_next, 128 << 10
        elif r < 0.45:
            op, off, length = "read", rng.randrange(SPAN // 4096) * 4096, 4096
        elif r < 0.85:
            op, off, length = "write", rng.randrange(SPAN // 4096) * 4096, 4096
        elif r < 0.93 and "trim" in ops:
            op, off, length = "trim", rng.randrange(SPAN // (1 << 20)) << 20, 1 << 20
        elif "flush" in ops:
            op, off, length = "flush", 0, 0
        else:
            op, off, length = "write", rng.randrange(SPAN // 4096) * 4096, 8192
        if op in ("read", "write") and unaligned and rng.random() < 0.05:
            off += 512 * rng.randrange(1, 8)
            length = 512 * rng.randrange(1, 24)
        if op == "write" and length == 128 << 10:
            seq_next = off + length if off + 2 * length <= SPAN else None
        elif op == "write" and rng.random() < 0.05:
            seq_next = rng.randrange(SPAN // (1 << 20)) << 20
        ios.append((t, op, off, length))
    return ios


def native(rng):
    lines = ["time_ns,op,offset_bytes,length_bytes"]
    lines += [f"{t},{op},{off},{length}" for t, op, off, length in workload(300, rng)]
    return "\n".join(lines) + "\n"


def msr(rng):
    # Headerless, as in the original distribution; two disks.
    lines = []
    for t, op, off, length in workload(300, rng, ops=("read", "write"), unaligned=True):
        disk = 0 if rng.random() < 0.7 else 1
        resp = int(rng.expovariate(1 / 2000))
        lines.append(f"{FILETIME_BASE + t // 100},src1,{disk},{op.capitalize()},{off},{length},{resp}")
    return "\r\n".join(lines) + "\r\n"  # the MSR CSVs have Windows line ends


def blkparse(rng):
    # Q (queue), D (issue) and C (complete) per IO on device 8,16, a few
    # message lines, then the summary block blkparse prints at the end.
    lines = []
    seq = {}
    counts = {"R": 0, "W": 0}
    pid = 4242
    events = []
    for t, op, off, length in workload(100, rng, unaligned=False):
        cpu = rng.randrange(4)
        if op == "flush":
            rwbs, where = "FN", "[jbd2/sdb1-8]"
            tail = f"{where}"
        else:
            rwbs = {"read": "R", "write": "WS", "trim": "D"}[op]
            if op == "read" and rng.random() < 0.2:
                rwbs = "RA"
            tail = f"{off // 512} + {length // 512} [fio]"
        events.append((t, cpu, "Q", rwbs, tail))
        events.append((t + 1500, cpu, "D", rwbs, tail))
        done = t + 1500 + int(rng.expovariate(1 / 80_000))
        c_tail = tail.replace("[fio]", "[0]").replace("[jbd2/sdb1-8]", "[0]")
        events.append((done, cpu, "C", rwbs, c_tail))
        if rwbs[0] in "RW":
            counts[rwbs[0]] += 1
    events.sort(key=lambda e: e[0])
    for i, (t, cpu, action, rwbs, tail) in enumerate(events):
        seq[cpu] = seq.get(cpu, 0) + 1
        lines.append(f"{8:3d},{16:<2d} {cpu:2d} {seq[cpu]:8d} {t // 10**9:5d}.{t % 10**9:09d} "
                     f"{pid:5d}  {action}  {rwbs:>3s} {tail}")
        if i in (10, 150):
            lines.append(f"{8:3d},{16:<2d} {cpu:2d} {0:8d} {t // 10**9:5d}.{t % 10**9:09d} "
                         f"{0:5d}  m   N cfq{pid} alloced")
    for cpu in sorted(seq):
        lines.append(f"CPU{cpu} (8,16):")
        lines.append(f" Reads Queued:      {counts['R']:6d},    {4 * counts['R']:6d}KiB\t "
                     f"Writes Queued:      {counts['W']:6d},    {4 * counts['W']:6d}KiB")
        lines.append(" IO unplugs:             0        \t Timer unplugs:           0")
    lines.append("")
    lines.append("Throughput (R/W): 0KiB/s / 0KiB/s")
    lines.append(f"Events (8,16): {len(events)} entries")
    lines.append("Skips: 0 forward (0 -   0.0%)")
    return "\n".join(lines) + "\n"


def fio(rng, version):
    name = "/dev/nvme0n1"
    ios = workload(300, rng, ops=("read", "write", "trim", "flush"))
    lines = [f"fio version {version} iolog"]
    if version == 2:
        lines += [f"{name} add", f"{name} open"]
        last = 0
        for t, op, off, length in ios:
            us = (t - last) // 1000
            if us > 0:
                lines.append(f"{name} wait {us} 0")
                last += us * 1000
            action = "sync" if op == "flush" else op
            lines.append(f"{name} {action} {off} {length}")
        lines.append(f"{name} close")
    else:
        lines += [f"0 {name} add", f"0 {name} open"]
        for t, op, off, length in ios:
            action = "sync" if op == "flush" else op
            lines.append(f"{t // 1000} {name} {action} {off} {length}")
        lines.append(f"{ios[-1][0] // 1000 + 10} {name} close")
    return "\n".join(lines) + "\n"


def disksim(rng):
    lines = []
    for t, op, off, length in workload(300, rng, ops=("read", "write"), unaligned=False):
        flags = 0x1 if op == "read" else 0x0
        lines.append(f"{t / 1e6:.6f} 0 {off // 512} {length // 512} {flags:x}")
    return "\n".join(lines) + "\n"


def mqsim(rng):
    lines = []
    for t, op, off, length in workload(300, rng, ops=("read", "write"), unaligned=False):
        lines.append(f"{t} 0 {off // 512} {length // 512} {1 if op == 'read' else 0}")
    return "\n".join(lines) + "\n"


def spc(rng):
    lines = []
    for t, op, off, length in workload(300, rng, ops=("read", "write"), unaligned=False):
        asu = 0 if rng.random() < 0.8 else 1
        lines.append(f"{asu},{off // 512},{length},{op[0]},{t / 1e9:.6f}")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "traces")
    os.makedirs(out, exist_ok=True)
    files = {
        "native_sample.csv": native,
        "msr_sample.csv": msr,
        "blkparse_sample.txt": blkparse,
        "fio_v2_sample.log": lambda rng: fio(rng, 2),
        "fio_v3_sample.log": lambda rng: fio(rng, 3),
        "disksim_sample.trace": disksim,
        "mqsim_sample.trace": mqsim,
        "spc_sample.csv": spc,
    }
    for i, (name, make) in enumerate(files.items()):
        text = make(random.Random(SEED * 100 + i))
        with open(os.path.join(out, name), "w", newline="") as f:
            f.write(text)
        if name == "native_sample.csv":
            with open(os.path.join(out, name + ".gz"), "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                    gz.write(text.encode())
    print(f"wrote {len(files) + 1} sample traces to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
