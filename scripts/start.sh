#!/bin/sh
# `npm start`: from a fresh clone to a running server on embedded defaults (its own FalkorDB, local settings).
set -eu
cd "$(dirname "$0")/.."
# Node 22.19 or newer first on PATH (npm included, which runs on the first node it finds).
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
if [ -z "${TOKEN_STORE_URL:-}" ]; then
  sh scripts/ensure-system.sh || printf '[start] continuing: the server will try the binary bundled with the FalkorDB module\n' >&2
fi
sh scripts/ensure-node-modules.sh
npm run --silent build
exec node dist/main.js
