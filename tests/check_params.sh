#!/usr/bin/env bash
# Every config key is read through its declaration (sim/params.h): outside
# sim/ (the reader itself), no model calls a raw ConfigNode getter, so no
# default, range or key escapes `ssdtwin params` and docs/CONFIG.md.
set -euo pipefail
cd "$(dirname "$0")/.."
raw='\.(get_(bytes|time|int|double|bool|string|enum|amount|rate_mts|time_list|int_list|bytes_list|value_texts)|child|children)\('
# Params::child/children take a section as their second argument: allowed.
found=$(grep -rnE "$raw" --include='*.cpp' --include='*.h' app ftl host nand power |
  grep -vE '\.(child|children)\([^,()]*(\([^()]*\))?[^,()]*, *[A-Za-z_:]+' || true)
if [ -n "$found" ]; then
  echo "check_params: config read outside its declaration (use sim/params.h's Params):" >&2
  echo "$found" >&2
  exit 1
fi
echo "check_params: every config key read through its declaration"
