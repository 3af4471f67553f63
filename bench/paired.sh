#!/usr/bin/env bash
# Paired, interleaved timing of two commands (A, then B, then A, ...) on this
# machine: the ratio A/B pair by pair keeps its meaning when the machine's
# speed drifts. Wall, user+system seconds and peak memory from /usr/bin/time.
#   bench/paired.sh [-n PAIRS] [-w WARMUP] [-c CPU] [--cold S] 'COMMAND A' 'COMMAND B'
# Prints the medians and min-max of both commands and of the ratio A/B.
# -c pins both to one CPU (taskset); --cold sleeps S seconds before every
# run (bench/harness.py says why). Defaults: 5 pairs after 1 warm-up pair.
set -euo pipefail
exec python3 "$(dirname "$0")/harness.py" paired "$@"
