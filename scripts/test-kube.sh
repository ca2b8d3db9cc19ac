#!/bin/sh
# `npm run test:kube`: the admin suites and test/kube/ against a real kube-apiserver and etcd (vitest.kube.config.ts),
# with the server holding only the Helm chart's RBAC and the real KubeBlocks CRDs installed. Builds the binaries on
# first use (scripts/ensure-kube.sh, about 15 minutes on 2 cores; cached in ~/.cache/graphdb-server/bin) and fetches
# the CRDs from KubeBlocks' Go module (scripts/ensure-kubeblocks-crds.sh, a few seconds; cached in
# ~/.cache/graphdb-server/kubeblocks-crds). When either cannot be obtained it prints a SKIPPED line with the reason and
# exits 0; a test failure exits non-zero.
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
export PATH
sh scripts/ensure-node-modules.sh
REASON_FILE=$(mktemp)
trap 'rm -f "$REASON_FILE"' EXIT
if ! KUBE_ENV=$(ENSURE_KUBE_REASON_FILE="$REASON_FILE" sh scripts/ensure-kube.sh); then
  echo "SKIPPED: kube-apiserver tests: kube-apiserver not available because $(cat "$REASON_FILE" 2>/dev/null || echo 'scripts/ensure-kube.sh failed')"
  exit 0
fi
eval "$KUBE_ENV"
export ETCD_BIN KUBE_APISERVER_BIN
if ! HELM_BIN=$(sh scripts/ensure-helm.sh); then
  echo "SKIPPED: kube-apiserver tests: helm not available (the tests render the chart's RBAC with it) because scripts/ensure-helm.sh failed"
  exit 0
fi
export HELM_BIN
if ! KUBEBLOCKS_CRDS_DIR=$(ENSURE_KUBEBLOCKS_CRDS_REASON_FILE="$REASON_FILE" sh scripts/ensure-kubeblocks-crds.sh); then
  echo "SKIPPED: kube-apiserver tests: the real KubeBlocks CRDs are not available because $(cat "$REASON_FILE" 2>/dev/null || echo 'scripts/ensure-kubeblocks-crds.sh failed')"
  exit 0
fi
export KUBEBLOCKS_CRDS_DIR
# The chart test installs its ServiceMonitor and PrometheusRule against prometheus-operator's own CRDs; without them
# that test fails and says why (the other suites do not need them).
PROMETHEUS_OPERATOR_CRDS_DIR=$(sh scripts/ensure-prometheus-operator-crds.sh) || PROMETHEUS_OPERATOR_CRDS_DIR=''
export PROMETHEUS_OPERATOR_CRDS_DIR
echo "== tests against a real API server: $("$KUBE_APISERVER_BIN" --version), etcd $("$ETCD_BIN" --version | sed -n 's/^etcd Version: //p'), KubeBlocks CRDs $(cat "$KUBEBLOCKS_CRDS_DIR"/*/.complete | sed 's/ .*//' | tr '\n' ' ')"
node scripts/run-vitest.mjs --config vitest.kube.config.ts "$@"
