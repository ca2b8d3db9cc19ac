#!/bin/sh
# `npm start`: from a fresh clone to a running server on embedded defaults (its own FalkorDB, local settings).
# Each step says what it does when it has work to do; a warm start only checks and then runs the compiled server.
set -eu
cd "$(dirname "$0")/.."
# Node 22.19 or newer first on PATH (npm included, which runs on the first node it finds).
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
if [ -z "${TOKEN_STORE_URL:-}" ]; then
  sh scripts/ensure-system.sh || printf '[start] continuing: the server will try the binary bundled with the FalkorDB module\n' >&2
fi
sh scripts/ensure-node-modules.sh
# Compiles only when src/, the TypeScript configuration or the dependencies changed since the last build.
node scripts/build.mjs --quiet
exec node dist/main.js
