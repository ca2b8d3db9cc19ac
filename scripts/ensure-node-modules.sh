#!/bin/sh
# Installs the npm dependencies when they are missing or older than package-lock.json.
set -eu
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  printf '[ensure-node-modules] npm ci\n' >&2
  npm ci --no-audit --no-fund >&2
fi
