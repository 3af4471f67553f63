#!/usr/bin/env bash
# Fuzzes SSDTwin's input parsers with libFuzzer (issue 13): builds the
# targets in fuzz/ with clang, ASan and UBSan in build-fuzz/, then runs each
# for SECONDS (default 30) from a copy of its checked-in seed corpus
# (fuzz/corpus/<target>/, never written: the run grows the copy in
# build-fuzz/corpus/<target>/, which later runs start from).
#   tools/fuzz.sh [SECONDS]     CI: tools/fuzz.sh 10; a campaign: tools/fuzz.sh 3600
# Exits 1 if any target finds something (crash, sanitizer report, uncaught
# exception, an input slower than 10 s, above 2 GB of memory or allocating
# over 512 MB at once); the input is in build-fuzz/findings/<target>/ and
# the log beside it. Reproduce with
#   build-fuzz/fuzz/fuzz_<target> build-fuzz/findings/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
[[ "$secs" =~ ^[0-9]+$ ]] && ((secs > 0)) || { echo "usage: tools/fuzz.sh [SECONDS > 0]" >&2; exit 2; }

tools/setup.sh --fuzz
# The build tools/test.sh --sanitize uses (its libraries are reused here).
tools/configure_sanitized.sh build-fuzz
cmake --build build-fuzz -j"$(nproc)" --target fuzz_all

# The targets as fuzz/CMakeLists.txt declares them (one list, read here).
read -ra targets <<<"$(sed -n 's/^set(SSDTWIN_FUZZ_TARGETS \(.*\))$/\1/p' fuzz/CMakeLists.txt)"
((${#targets[@]})) || { echo "fuzz.sh: no SSDTWIN_FUZZ_TARGETS in fuzz/CMakeLists.txt" >&2; exit 2; }
failed=()
printf '%-13s %12s %9s %8s  %s\n' target executions exec/s corpus outcome
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  findings=build-fuzz/findings/$t
  log=build-fuzz/findings/$t.log
  mkdir -p "$corpus" "$findings"
  cp fuzz/corpus/"$t"/* "$corpus"/
  rc=0
  # A single allocation above 512 MB is reported at once (with its stack), before the
  # RSS limit: libFuzzer's out-of-memory report walks the whole heap and can take
  # minutes, so `timeout` bounds a target's run whatever happens.
  UBSAN_OPTIONS=print_stacktrace=1 timeout -k 10 $((secs + 120)) \
    build-fuzz/fuzz/fuzz_"$t" "$corpus" -max_total_time="$secs" -rss_limit_mb=2048 \
    -malloc_limit_mb=512 -timeout=10 -max_len=8192 -artifact_prefix="$findings"/ \
    -print_final_stats=1 >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  size=$(find "$corpus" -type f | wc -l)
  if ((rc == 0)); then
    outcome="no finding"
  else
    outcome="FINDING (exit $rc): $log"
    failed+=("$t")
  fi
  printf '%-13s %12s %9s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$size" "$outcome"
done
if ((${#failed[@]})); then
  for t in "${failed[@]}"; do
    echo "---- $t: build-fuzz/findings/$t.log (last lines)" >&2
    tail -n 40 build-fuzz/findings/"$t".log >&2
  done
  exit 1
fi
