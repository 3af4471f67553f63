#!/usr/bin/env bash
# README command 2: installs the dependencies, builds and runs the tests.
#   tools/test.sh             release build, all unit and end-to-end tests
#   tools/test.sh --sanitize  the same under AddressSanitizer + UBSan (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
if [ "${1:-}" = "--sanitize" ]; then
  tools/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSSDTWIN_SANITIZE=ON -DSSDTWIN_WERROR=ON
  cd build-asan
else
  tools/build.sh build -DSSDTWIN_WERROR=ON
  cd build
fi
ctest --output-on-failure -j"$(nproc)" -L unit
