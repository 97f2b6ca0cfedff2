#!/usr/bin/env bash
# `npm run reproduce`: installs what it needs, recomputes every published claim from the raw numbers in
# data/published/, executes the notebooks that do so (00 introduction, 01 published claims) and writes
# the offline HTML report reports/index.html with every notebook. Notebooks 02–06 show recorded runs of
# our own (kernel build and VM, PostgreSQL patch, harness, lock statistics): they are included with
# their committed outputs, or executed again with `npm run reproduce -- --all` (that builds PostgreSQL
# and a kernel when they are not cached, and runs benchmarks: allow an hour on a 2-core machine).
# --record keeps a run record in data/test-runs/ (its time with and without the installs, what the
# clone lacked at the start), from which README's table of times is generated.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/work-dir.sh
execute=(--execute 00,01)
record=0
for arg in "$@"; do
  case "$arg" in
    --all) execute=() ;;
    --record) record=1 ;;
    *) echo "reproduce: unknown argument \"$arg\" (known: --all, --record)" >&2; exit 2 ;;
  esac
done
started=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
t0=$(date +%s.%N)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
missing=()
[ -d node_modules ] || missing+=(node_modules)
[ -d dist ] || missing+=(dist)
[ -f "${SLICELAB_WORK:-$ROOT/.work}/jupyter/share/jupyter/kernels/tslab/kernel.json" ] || missing+=(tslab-kernel-spec)
if [ ${#execute[@]} -eq 0 ]; then
  bash scripts/setup.sh core jupyter postgres build vm
else
  bash scripts/setup.sh core jupyter
fi
start=$(date +%s.%N)
rc=0
node bin/slicelab.js claims || rc=$?
[ "$rc" = 0 ] && { node bin/slicelab.js report --out reports "${execute[@]}" || rc=$?; }
end=$(date +%s.%N)
what="published claims recomputed, notebooks 00–01 executed and report written"
[ ${#execute[@]} -eq 0 ] && what="published claims recomputed, all notebooks executed and report written"
if [ "$rc" = 0 ]; then
  awk -v s="$start" -v e="$end" -v t="$t0" -v w="$what" 'BEGIN { printf "reproduce: %s in %.1f s after installs, %.1f s in all\n", w, e - s, e - t }'
else
  echo "reproduce: FAILED (exit $rc) after $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s"
fi
if [ "$record" = 1 ]; then
  node dist/scripts/test-summary.js reproduce-record --out "$ROOT/data/test-runs" --started "$started" --t0 "$t0" --t-setup "$start" \
    --exit "$rc" --missing "${missing[*]:-}" --what "$what" --load-start "$load_start"
fi
exit "$rc"
