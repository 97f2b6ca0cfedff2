#!/usr/bin/env bash
# `npm run reproduce`: installs what it needs, recomputes every published claim from the raw numbers in
# data/published/, executes the notebooks that do so (00 introduction, 01 published claims) and writes
# the offline HTML report reports/index.html with every notebook. Notebooks 02–06 show recorded runs of
# our own (kernel build and VM, PostgreSQL patch, harness, lock statistics): they are included with
# their committed outputs, or executed again with `npm run reproduce -- --all` (that builds PostgreSQL
# and a kernel when they are not cached, and runs benchmarks: allow an hour on a 2-core machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/work-dir.sh
execute=(--execute 00,01)
for arg in "$@"; do
  case "$arg" in
    --all) execute=() ;;
    *) echo "reproduce: unknown argument \"$arg\" (known: --all)" >&2; exit 2 ;;
  esac
done
if [ ${#execute[@]} -eq 0 ]; then
  bash scripts/setup.sh core jupyter postgres build vm
else
  bash scripts/setup.sh core jupyter
fi
start=$(date +%s.%N)
node bin/slicelab.js claims
node bin/slicelab.js report --out reports "${execute[@]}"
end=$(date +%s.%N)
what="published claims recomputed, notebooks 00–01 executed and report written"
[ ${#execute[@]} -eq 0 ] && what="published claims recomputed, all notebooks executed and report written"
awk -v s="$start" -v e="$end" -v w="$what" 'BEGIN { printf "reproduce: %s in %.1f s (after installs)\n", w, e - s }'
