#!/bin/sh
# `npm run bench`: builds the server and runs bench/run.ts under Node 22.19+ (see scripts/ensure-node.sh).
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
sh scripts/ensure-node-modules.sh
npm run --silent build
node_modules/.bin/tsx bench/run.ts "$@"
# The audit log at scale loads its own 1,000,000 entries into a FalkorDB of its own (about a minute); it runs after
# the rest, and with BENCH_ONLY only when the pattern matches "audit log".
if [ -z "${BENCH_ONLY:-}" ] || echo "audit log" | grep -qiE "$BENCH_ONLY"; then
  node_modules/.bin/tsx bench/audit-log.ts
fi
