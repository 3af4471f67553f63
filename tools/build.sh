#!/usr/bin/env bash
# Configures and builds SSDTwin in its one build configuration, which the
# README's two commands share: tools/quickstart.sh builds only the main
# job's binary, tools/test.sh then adds the tests to the same tree (same
# flags, so nothing built before is built again).
#   tools/build.sh [BUILD_DIR [TARGET ...]]   default: build/, every target
#   tools/build.sh --flags                     the configuration's cmake flags
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-DCMAKE_BUILD_TYPE=Release -DSSDTWIN_WERROR=ON)
if [ "${1:-}" = "--flags" ]; then
  echo "${flags[*]}"
  exit 0
fi
dir=${1:-build}
shift || true
for t in "$@"; do
  case $t in -*) echo "tools/build.sh: '$t': targets only; the flags are the configuration's (tools/build.sh --flags)" >&2; exit 2 ;; esac
done
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
if [ $# -eq 0 ]; then
  cmake --build "$dir" -j"$(nproc)"
else
  cmake --build "$dir" -j"$(nproc)" --target "$@"
fi
