#!/bin/sh
# Provides helm for the chart tests: built once with the Go toolchain from the Go module proxy and cached in
# ~/.cache/graphdb-server/bin. Installs Debian's golang (bookworm-backports) first when Go is missing and we are root.
# Prints the path of the helm binary; exits 1 when it cannot provide one.
set -eu
HELM_VERSION=v3.16.4
CACHE="${HOME}/.cache/graphdb-server/bin"
HELM="${CACHE}/helm-${HELM_VERSION}"
say() { printf '[ensure-helm] %s\n' "$*" >&2; }

if [ -x "$HELM" ]; then echo "$HELM"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing golang from bookworm-backports"
    sh "$(dirname "$0")/ensure-system.sh" >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t bookworm-backports golang >/dev/null
  else
    say "Go is missing and cannot be installed here (needs root and apt-get)"
    exit 1
  fi
fi
say "building helm ${HELM_VERSION} with $(go version) (once; cached in ${CACHE})"
mkdir -p "$CACHE"
GOBIN="$CACHE/build" go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2
mv "$CACHE/build/helm" "$HELM"
echo "$HELM"
