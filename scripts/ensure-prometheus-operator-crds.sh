#!/bin/sh
# Provides prometheus-operator's ServiceMonitor and PrometheusRule CustomResourceDefinitions, so the chart test of
# `npm run test:kube` installs the chart's ServiceMonitor and PrometheusRule into the real API server and has them
# checked by the operator's own schemas. They ship with prometheus-operator's Go module
# (example/prometheus-operator-crd/), which `go mod download` fetches from the Go module proxy (no other download).
# Copies the two files into ~/.cache/graphdb-server/prometheus-operator-crds/<version>/ once; later runs only print
# the path. Prints that directory; exits 1 with the reason on stderr when it cannot.
set -eu
VERSION=v0.80.1
MODULE=github.com/prometheus-operator/prometheus-operator
CACHE="${HOME}/.cache/graphdb-server/prometheus-operator-crds/${VERSION}"
say() { printf '[ensure-prometheus-operator-crds] %s\n' "$*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

if [ -f "${CACHE}/.complete" ]; then echo "$CACHE"; exit 0; fi
command -v go >/dev/null 2>&1 || fail "Go is missing (scripts/ensure-helm.sh installs it when run as root)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say "downloading ${MODULE}@${VERSION} from the Go module proxy (once; cached in ${CACHE})"
# Outside any module, so no go.mod of ours is read or changed.
JSON=$(cd "$WORK" && GOTOOLCHAIN=local go mod download -json "${MODULE}@${VERSION}") \
  || fail "'go mod download ${MODULE}@${VERSION}' failed"
DIR=$(printf '%s\n' "$JSON" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
SOURCE="${DIR}/example/prometheus-operator-crd"
mkdir -p "$WORK/out"
for kind in servicemonitors prometheusrules; do
  [ -f "${SOURCE}/monitoring.coreos.com_${kind}.yaml" ] || fail "${MODULE}@${VERSION} has no ${kind} CRD"
  cp "${SOURCE}/monitoring.coreos.com_${kind}.yaml" "$WORK/out/"
done
chmod -R u+w "$WORK/out"
printf '%s\n' "${MODULE}@${VERSION}" >"$WORK/out/.complete"
mkdir -p "$(dirname "$CACHE")"
rm -rf "$CACHE"
mv "$WORK/out" "$CACHE"
echo "$CACHE"
