#!/bin/sh
# `npm run bench`: builds the server and runs bench/run.ts under Node 22.19+ (see scripts/ensure-node.sh).
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
sh scripts/ensure-node-modules.sh
npm run --silent build
exec node_modules/.bin/tsx bench/run.ts "$@"
