#!/usr/bin/env bash
# The bench harness's plumbing (bench/harness.py): pairs, a table row and
# summary.json fields come out in the shapes the bench scripts and RESULTS
# use. No time is checked: speed is measured by the bench scripts, never here.
set -euo pipefail
h="$(dirname "$0")/../bench/harness.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_bench_harness: $*" >&2; exit 1; }

out=$(python3 "$h" paired -n 2 -w 0 "sleep 0.05" "sleep 0.05")
for k in "A wall s" "B cpu s" "A peak MiB" "A/B wall" "A/B cpu"; do
  # (nan: a CPU time under the clock's 10 ms, as sleep's)
  n='([0-9.]+|nan)'
  grep -Eq "^$k *median $n *min $n *max $n\$" <<<"$out" || fail "paired: no '$k' line in: $out"
done
# --cold sleeps before every run, outside the timing.
cold=$(python3 "$h" paired -n 1 -w 0 --cold 0.2 "sleep 0.05" "sleep 0.05")
a=$(awk '/^A wall s/ {print $5}' <<<"$cold")
python3 -c "import sys; sys.exit(0 if float('$a') < 0.2 else 1)" || fail "paired --cold: the sleep was timed ($a s)"
row=$(python3 "$h" paired -n 1 -w 0 --row label "sleep 0.05" "sleep 0.05")
want='^\| label \| [0-9.]+ s \([0-9.]+ s\) \| [0-9.]+ s \([0-9.]+ s\) \| .*x \(.*\) \| [0-9]+ / [0-9]+ \|$'
grep -Eq "$want" <<<"$row" || fail "paired --row: $row"

cat >"$tmp/summary.json" <<'JSON'
{"run": {"build_seconds": 0.5, "host_ios": 10, "host_ios_per_wall_second": 100.0},
 "phases": [{"name": "a"}, {"name": "b"}]}
JSON
[ "$(python3 "$h" field "$tmp/summary.json" run.build_seconds phases.-1.name)" = "0.5 b" ] ||
  fail "field: wrong values"
row=$(python3 "$h" time -n 1 --summary "$tmp" --label L --ref 2 -- true)
want='^\| L \| 2 s \| [0-9.]+ s \| .*x \| 0.50 s \| .* \| [0-9,]+ MiB \| .true. \|$'
grep -Eq "$want" <<<"$row" || fail "time: $row"

# A failing command stops the harness with its name and a non-zero exit.
if err=$(python3 "$h" paired -n 1 -w 0 true false 2>&1); then fail "paired: a failing command passed"; fi
grep -q "failed (exit 1): false" <<<"$err" || fail "paired: failure not named: $err"
echo "check_bench_harness: ok"
