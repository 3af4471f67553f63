#!/usr/bin/env bash
# README command 2: installs the dependencies, builds and runs the tests.
#   tools/test.sh             release build, all unit and end-to-end tests
#   tools/test.sh --sanitize  the same under AddressSanitizer + UBSan (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
if [ "${1:-}" = "--sanitize" ]; then
  # -O1 with line tables: half the compile time of -O2 -g under the
  # sanitizers, and reports still name file and line.
  tools/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DSSDTWIN_SANITIZE=ON -DSSDTWIN_WERROR=ON
  cd build-asan
else
  tools/build.sh build -DSSDTWIN_WERROR=ON
  cd build
fi
# The sanitizers leave out the [slow] cases: the same code paths run in
# shorter cases, and the release run keeps them.
if [ "${1:-}" = "--sanitize" ]; then
  ctest --output-on-failure -j"$(nproc)" -L unit -LE slow
else
  ctest --output-on-failure -j"$(nproc)" -L unit
fi
