#!/bin/sh
# `npm run bench`: builds the server and runs bench/run.ts under Node 22.19+ (see scripts/ensure-node.sh).
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
sh scripts/ensure-node-modules.sh
npm run --silent build
# `npm run bench:compare -- <dir>`: this build against the one in <dir> (bench/compare-builds.ts), nothing else.
if [ "${1:-}" = "--compare" ]; then
  shift
  exec node_modules/.bin/tsx bench/compare-builds.ts "$@"
fi
node_modules/.bin/tsx bench/run.ts "$@"
# Start-up: time to ready and RSS at ready of an embedded start, against the public browser's 149 MiB (about 30 s).
if [ -z "${BENCH_ONLY:-}" ] || echo "start-up" | grep -qiE "$BENCH_ONLY"; then
  node_modules/.bin/tsx bench/start-up.ts
fi
# The Cypher shell's peak memory streaming 1,000 and 1,000,000 rows in every output format, 3 runs each (a few minutes).
if [ -z "${BENCH_ONLY:-}" ] || echo "shell memory" | grep -qiE "$BENCH_ONLY"; then
  node_modules/.bin/tsx bench/shell-memory.ts
fi
# Reading a query's reply apart from HTTP: our reader and decoder beside node-redis's decoder (about 30 seconds).
if [ -z "${BENCH_ONLY:-}" ] || echo "reply decoding" | grep -qiE "$BENCH_ONLY"; then
  node_modules/.bin/tsx bench/reply-decoding.ts
fi
# The audit log at scale loads its own 1,000,000 entries into a FalkorDB of its own (about a minute); it runs after
# the rest, and with BENCH_ONLY only when the pattern matches "audit log".
if [ -z "${BENCH_ONLY:-}" ] || echo "audit log" | grep -qiE "$BENCH_ONLY"; then
  node_modules/.bin/tsx bench/audit-log.ts
fi
# GET /api/clusters/ with 1,000 deployments in a real kube-apiserver: with the binaries `npm run test:kube` built
# (never built here) and KubeBlocks' CRDs; without them the scenario says SKIPPED and why.
if [ -z "${BENCH_ONLY:-}" ] || echo "cluster list" | grep -qiE "$BENCH_ONLY"; then
  if KUBE_ENV=$(ENSURE_KUBE_CACHED_ONLY=1 sh scripts/ensure-kube.sh 2>/dev/null); then
    eval "$KUBE_ENV"
    export ETCD_BIN KUBE_APISERVER_BIN
    HELM_BIN=$(sh scripts/ensure-helm.sh) && export HELM_BIN
    KUBEBLOCKS_CRDS_DIR=$(sh scripts/ensure-kubeblocks-crds.sh 2>/dev/null) && export KUBEBLOCKS_CRDS_DIR
  fi
  node_modules/.bin/tsx bench/cluster-list.ts
fi
# The browser API in front of a 3-primary FalkorDB cluster beside one node; about 30 seconds.
if [ -z "${BENCH_ONLY:-}" ] || echo "sharded cluster" | grep -qiE "$BENCH_ONLY"; then
  node_modules/.bin/tsx bench/sharded-cluster.ts
fi
