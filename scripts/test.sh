#!/bin/sh
# `npm test`: the whole suite on a fresh clone: lint, typecheck, then unit and integration tests against a real FalkorDB.
set -eu
cd "$(dirname "$0")/.."
# Node 22.19 or newer first on PATH (npm included, which runs on the first node it finds).
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
sh scripts/ensure-system.sh --for-tests || printf '[test] continuing: tests will try the binary bundled with the FalkorDB module\n' >&2
sh scripts/ensure-node-modules.sh
echo '== lint'
npm run --silent lint
echo '== typecheck'
npm run --silent typecheck
echo '== helm (the chart tests run helm lint and helm template)'
HELM_BIN=$(sh scripts/ensure-helm.sh) || HELM_BIN=''
export HELM_BIN
echo '== chart rules (promtool check rules when promtool is at hand, else a structural check; the first line says which)'
if [ -n "$HELM_BIN" ]; then sh scripts/check-chart-rules.sh; else echo 'chart rules not checked: helm is not available (the chart tests fail and say why)'; fi
echo '== build (the CLI tests run the compiled graphdb-admin)'
npm run --silent build
echo '== unit tests'
npm run --silent test:unit
echo '== tests'
node scripts/run-vitest.mjs "$@"
