#!/usr/bin/env bash
# `npm test` (and `npm run test:e2e` with --e2e): installs what the tests need (Debian packages, npm
# packages, the tslab kernel spec), builds the TypeScript, then
#   1. `slicelab prepare test|e2e`: the kernel(s) and PostgreSQL builds the suite needs, made once,
#      up front, each step with a progress line and its time (nothing after this builds: the tests
#      and notebook cells run under the build guard, SLICELAB_NO_BUILD);
#   2. every test file with node's test runner, one file at a time (they start real PostgreSQL
#      clusters, QEMU guests and Chromium: side by side on a small machine that only adds noise);
#   3. the summary: every skipped test and why, the data/ guard (no test may write into data/),
#      and the closing count line.
# Options (before any file list): --e2e (the end-to-end kernel path, SLICELAB_E2E=1), --record
# (keep a run record in data/test-runs/, the source of README's table of times). Further
# arguments are test files (e.g. dist/test/notebooks.test.js).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
suite=test; record=0
while [ $# -gt 0 ]; do
  case "$1" in
    --e2e) suite=e2e; shift ;;
    --record) record=1; shift ;;
    *) break ;;
  esac
done
t0=$(date +%s.%N); started=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ); load_start=$(cut -d' ' -f1-3 /proc/loadavg)
source scripts/work-dir.sh
bash scripts/setup.sh core jupyter postgres browser build vm tracefs sshd
node node_modules/typescript/bin/tsc -p tsconfig.json
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
node bin/slicelab.js prepare "$suite" --json > "$tmp/prepare.json"
t_prepared=$(date +%s.%N)
if [ $# -gt 0 ]; then files=("$@")
elif [ "$suite" = e2e ]; then files=(dist/test/vm-boot.test.js dist/test/vm-e2e.test.js dist/test/vm-trace.test.js dist/test/vm-mechanism.test.js dist/test/kernel-package.test.js dist/test/study-vm.test.js dist/test/vm-rseq-stale-e2e.test.js dist/test/bundle-vm-e2e.test.js)
else mapfile -t files < <(ls dist/test/*.test.js | sort); fi
export SLICELAB_NO_BUILD="a test file: the suite's builds are made by \`slicelab prepare $suite\` before the tests start"
[ "$suite" = e2e ] && export SLICELAB_E2E=1
rc=0
export SLICELAB_GUARD_OUT="$tmp/guard"
node --import ./dist/src/testing/data-guard.js --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./dist/src/testing/reporter.js --test-reporter-destination="$tmp/summary.json" \
  "${files[@]}" || rc=$?
rec=()
[ "$record" = 1 ] && rec=(--record "$ROOT/data/test-runs" --suite "$suite" --prepare "$tmp/prepare.json" --started "$started" --t0 "$t0" --t-tests "$t_prepared" --load-start "$load_start")
node dist/scripts/test-summary.js close "$tmp/summary.json" "$rc" "${rec[@]}"
