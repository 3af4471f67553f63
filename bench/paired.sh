#!/usr/bin/env bash
# Paired, interleaved timing of two commands (A, then B, then A, ...) on this
# machine: the ratio A/B pair by pair keeps its meaning when the machine's
# speed drifts. Wall, user+system seconds and peak memory from /usr/bin/time.
#   bench/paired.sh [-n PAIRS] [-w WARMUP] [-c CPU] 'COMMAND A' 'COMMAND B'
# Prints the medians and min-max of both commands and of the ratio A/B.
# -c pins both to one CPU (taskset). Defaults: 5 pairs after 1 warm-up pair.
set -euo pipefail
n=5 warm=1 cpu=
while getopts "n:w:c:" o; do
  case $o in n) n=$OPTARG ;; w) warm=$OPTARG ;; c) cpu=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: bench/paired.sh [-n PAIRS] [-w WARMUP] [-c CPU] 'COMMAND A' 'COMMAND B'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin=()
[ -z "$cpu" ] || pin=(taskset -c "$cpu")
one() {  # command, file to append "wall cpu peak_kib" to
  # shellcheck disable=SC2086
  "${pin[@]}" /usr/bin/time -f "%e %U %S %M" -a -o "$2" sh -c "$1" >/dev/null 2>"$tmp/err" </dev/null ||
    { echo "paired.sh: failed: $1" >&2; cat "$tmp/err" >&2; exit 1; }
}
for i in $(seq 1 $((warm + n))); do
  f=a b=b
  [ "$i" -le "$warm" ] && f=wa b=wb
  one "$1" "$tmp/$f"
  one "$2" "$tmp/$b"
done
python3 - "$tmp/a" "$tmp/b" <<'PY'
import statistics as st, sys
def rows(p): return [list(map(float, l.split())) for l in open(p) if l[:1].isdigit()]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
def line(name, xs, fmt="{:.3f}"):
    print(f"{name:10} median {fmt.format(st.median(xs))}  min {fmt.format(min(xs))}  max {fmt.format(max(xs))}")
for tag, r in (("A", a), ("B", b)):
    line(tag + " wall s", [x[0] for x in r]); line(tag + " cpu s", [x[1] + x[2] for x in r])
    line(tag + " peak MiB", [x[3] / 1024 for x in r], "{:.1f}")
line("A/B wall", [x[0] / y[0] for x, y in zip(a, b)], "{:.4f}")
line("A/B cpu", [(x[1] + x[2]) / max(y[1] + y[2], 1e-9) for x, y in zip(a, b)], "{:.4f}")
PY
