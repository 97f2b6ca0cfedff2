#!/usr/bin/env bash
# `npm test`: installs what the tests need (Debian packages, npm packages, the tslab kernel spec),
# builds the TypeScript, then runs every test file under test/ with node's test runner, one file at a time
# (they start real PostgreSQL clusters, QEMU guests and Chromium: running them side by side on a small
# machine only adds noise).  Extra arguments are passed to `node --test` (e.g. a file list).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/work-dir.sh
bash scripts/setup.sh core jupyter postgres browser build vm
node node_modules/typescript/bin/tsc -p tsconfig.json
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(ls dist/test/*.test.js | sort); fi
exec node --test --test-concurrency=1 --test-reporter=spec "${files[@]}"
