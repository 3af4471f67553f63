#!/usr/bin/env bash
# Configures build-fuzz/: clang at -O1 with line tables, every library under
# AddressSanitizer and UBSan with libFuzzer's coverage instrumentation
# (-DSSDTWIN_FUZZ=ON). One build serves both users, so CI compiles the
# project once for them: the sanitizer test run (tools/test.sh --sanitize
# builds the tests here) and the fuzz targets (tools/fuzz.sh builds
# fuzz_all here). FUZZ_OPT=-O2 for a long campaign's executions per second.
#   tools/configure_sanitized.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-fuzz}
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${FUZZ_OPT:--O1} -gline-tables-only -DNDEBUG" \
  -DSSDTWIN_FUZZ=ON -DSSDTWIN_WERROR=ON >/dev/null
