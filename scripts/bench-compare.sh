#!/bin/sh
# `npm run bench:compare -- <dir>`: builds this checkout and compares it with the build in <dir> (bench/compare-builds.ts).
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
sh scripts/ensure-node-modules.sh
npm run --silent build
node_modules/.bin/tsx bench/compare-builds.ts "$@"
