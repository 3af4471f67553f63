#!/usr/bin/env bash
# README command 2: installs the dependencies, builds and runs the tests.
#   tools/test.sh             release build, all unit and end-to-end tests
#   tools/test.sh --sanitize  the same under AddressSanitizer + UBSan, built with clang
#                             in build-fuzz/ (tools/configure_sanitized.sh), which the
#                             fuzz targets share: CI compiles the project for both once
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  tools/setup.sh --fuzz
  tools/configure_sanitized.sh build-fuzz
  cmake --build build-fuzz -j"$(nproc)"
  cd build-fuzz
else
  tools/setup.sh
  tools/build.sh build  # the tree quickstart built, the tests added
  cd build
fi
# The sanitizers leave out the [slow] cases: the same code paths run in
# shorter cases, and the release run keeps them.
if [ "${1:-}" = "--sanitize" ]; then
  ctest --output-on-failure -j"$(nproc)" -L unit -LE slow
else
  ctest --output-on-failure -j"$(nproc)" -L unit
fi
