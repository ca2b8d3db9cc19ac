#!/bin/sh
# Installs the npm dependencies when they are missing or were installed from another package-lock.json. The lock file's
# content is compared, not its time: a git checkout touches the file without changing what it pins.
set -eu
# A node_modules that links to another checkout's (a git worktree sharing one install) is that checkout's to install.
[ -L node_modules ] && exit 0
stamp=node_modules/.graphdb-lock-sha256
wanted=$(node -e "process.stdout.write(require('node:crypto').createHash('sha256').update(require('node:fs').readFileSync('package-lock.json')).digest('hex'))")
if [ ! -f node_modules/.package-lock.json ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  started=$(date +%s)
  printf '[ensure-node-modules] installing the npm dependencies (npm ci; a minute or two on a first start)\n' >&2
  npm ci --no-audit --no-fund --loglevel=warn >&2
  printf '%s' "$wanted" >"$stamp"
  printf '[ensure-node-modules] installed in %s s\n' "$(($(date +%s) - started))" >&2
fi
