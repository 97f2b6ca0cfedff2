#!/usr/bin/env bash
# `npm run reproduce`: installs what it needs, then recomputes every published claim from the raw
# numbers in data/published/, executes the notebooks and writes the offline HTML report reports/index.html.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh core jupyter postgres
start=$(date +%s.%N)
node bin/slicelab.js claims
node bin/slicelab.js report --out reports "$@"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "reproduce: published claims recomputed and report written in %.1f s (after installs)\n", e - s }'
