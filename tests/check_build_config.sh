#!/usr/bin/env bash
# The README's two commands share one build: tools/quickstart.sh and
# tools/test.sh (release) both build build/ through tools/build.sh, which
# alone holds the configuration's flags, so the test command adds its
# targets to the main job's tree instead of rebuilding it.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "check_build_config: $*" >&2; exit 1; }
for s in tools/quickstart.sh tools/test.sh; do
  calls=$(grep -E '^[[:space:]]*tools/build\.sh' "$s" | sed 's/#.*//') || fail "$s does not build through tools/build.sh"
  while read -r _ dir rest; do
    [ "$dir" = build ] || fail "$s builds '$dir', not build/"
    for a in $rest; do
      case $a in -*) fail "$s passes '$a' to tools/build.sh: the configuration's flags live in tools/build.sh" ;; esac
    done
  done <<<"$calls"
done
grep -l -E 'CMAKE_BUILD_TYPE|SSDTWIN_WERROR' tools/quickstart.sh tools/test.sh && fail "a command sets its own build flags"
flags=$(tools/build.sh --flags)
[[ $flags == *CMAKE_BUILD_TYPE=Release* ]] || fail "tools/build.sh --flags: '$flags' is not a Release build"
# A configured tree (the one this test runs in) was configured with them.
if [ -n "${1:-}" ] && [ -f "$1/CMakeCache.txt" ]; then
  grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$1/CMakeCache.txt" || fail "$1 is not the Release configuration"
fi
echo "check_build_config: quickstart and test share tools/build.sh's configuration ($flags)"
