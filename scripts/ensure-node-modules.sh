#!/bin/sh
# Installs the npm dependencies when they are missing or older than package-lock.json.
set -eu
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  started=$(date +%s)
  printf '[ensure-node-modules] installing the npm dependencies (npm ci; a minute or two on a first start)\n' >&2
  npm ci --no-audit --no-fund --loglevel=warn >&2
  printf '[ensure-node-modules] installed in %s s\n' "$(($(date +%s) - started))" >&2
fi
