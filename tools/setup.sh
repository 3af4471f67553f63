#!/usr/bin/env bash
# Installs SSDTwin's build and run dependencies from Debian packages.
# Idempotent: packages already present are skipped, apt runs only when needed.
#   tools/setup.sh          what the build, the tests and the runs need
#   tools/setup.sh --fuzz   also clang and its libFuzzer/sanitizer runtimes (tools/fuzz.sh)
#   tools/setup.sh --slurm  also Slurm and munge (tools/slurm_cluster.sh install, for tools/slurm_test.sh)
set -euo pipefail
# fio: the tests run fio job files through fio's own parser and compare fio.json
# with fio's output (ioengine=null; no device is touched).
# clang-format: CI checks the tree's formatting (tests/check_format.sh).
PKGS=(g++ cmake make libboost-program-options-dev libspdlog-dev libyaml-cpp-dev catch2 gnuplot-nox nlohmann-json3-dev zlib1g-dev libzstd-dev liblzma-dev fio clang-format)
# libclang-rt-14-dev holds libFuzzer; clang only recommends it, and apt runs
# here without recommends.
if [ "${1:-}" = "--fuzz" ]; then PKGS+=(clang libclang-rt-14-dev); fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "${1:-}" = "--slurm" ]; then "$(dirname "$0")/slurm_cluster.sh" install; fi
