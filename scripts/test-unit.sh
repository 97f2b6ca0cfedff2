#!/usr/bin/env bash
# `npm run test:unit` (after `npm run build`): every test file, or the files given, with node's test
# runner one file at a time, without setup or `slicelab prepare` (a test whose build or tool is
# missing skips and says why) — but under the same data/ guard and with the same closing summary
# (every skipped test and why, data/ guard violations, the count line) as `npm test` (scripts/test.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/work-dir.sh
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(ls dist/test/*.test.js | sort); fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export SLICELAB_GUARD_OUT="$tmp/guard"
rc=0
node --import ./dist/src/testing/data-guard.js --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./dist/src/testing/reporter.js --test-reporter-destination="$tmp/summary.json" \
  "${files[@]}" || rc=$?
node dist/scripts/test-summary.js close "$tmp/summary.json" "$rc"
