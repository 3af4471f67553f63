#!/usr/bin/env python3
"""Writes a stand-in for MQSim's traces/tpcc-small.trace in MQSim's trace
format (arrival ns, device, start sector, sectors, 1 = read / 0 = write).

The trace itself is not shipped here, so this draws one with its shape, read
off the published file: 7,000 IOs arriving over 136 ms (938.9-1075.0 ms,
19.4 us apart on average, at 1 us granularity); 16 devices; almost every IO
8 KiB (16 sectors) at a sector address anywhere below 378.6 M sectors
(180 GiB), most of them not 4 KiB aligned, so an IO spans two or three 4 KiB
pages; a few 16 KiB IOs; about 60% reads; about 2% of the IOs are a log's
sequential writes of 3-120 sectors on device 8 from sector 454,514,863. The
shares are estimates from excerpts of the file (the read share ranged 51-65%
across them), so this is a stand-in of the same weight per IO, not the same
IOs; bench/mqsim_rows.sh uses MQSim's own file when TPCC_TRACE names it.

Deterministic: the same seed writes the same file (only random.random() is
drawn, whose sequence Python keeps stable across versions).

    bench/tpcc_standin.py OUT [--seed N]
"""
import argparse
import math
import random

IOS = 7000
START_NS = 938_944_000
SPAN_NS = 136_058_000
SPAN_SECTORS = 378_600_000
LOG_DEVICE = 8
LOG_START = 454_514_863
LOG_SHARE = 0.02
READ_SHARE = 0.60
LARGE_SHARE = 0.03  # 16 KiB instead of 8 KiB


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    mean_gap_us = SPAN_NS / 1000 / IOS
    t = START_NS
    log_sector = LOG_START
    with open(args.out, "w") as f:
        for _ in range(IOS):
            # Exponential gaps (Poisson arrivals), whole microseconds as in
            # the published trace; equal times are allowed there too.
            t += 1000 * int(0.5 - mean_gap_us * math.log(1.0 - rng.random()))
            if rng.random() < LOG_SHARE:
                sectors = 3 + int(rng.random() * 118)
                f.write(f"{t} {LOG_DEVICE} {log_sector} {sectors} 0\n")
                log_sector += sectors
                continue
            device = int(rng.random() * 15)
            device += device >= LOG_DEVICE  # the other 15 devices
            sector = int(rng.random() * SPAN_SECTORS)
            sectors = 32 if rng.random() < LARGE_SHARE else 16
            op = 1 if rng.random() < READ_SHARE else 0
            f.write(f"{t} {device} {sector} {sectors} {op}\n")


if __name__ == "__main__":
    main()
