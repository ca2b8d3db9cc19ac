#!/bin/sh
# Provides the real KubeBlocks CustomResourceDefinitions for the tests against a real Kubernetes API server
# (npm run test:kube): they ship with KubeBlocks' Go module (config/crd/bases/), which `go mod download` fetches from
# the Go module proxy (no other download). Two releases, each in a directory of its own:
#   v1.0.1  apps.kubeblocks.io/v1 Cluster, operations.kubeblocks.io/v1alpha1 OpsRequest, dataprotection, parameters,
#           workloads, ... (the KubeBlocks 1.x the server targets)
#   v0.9.0  apps.kubeblocks.io/v1alpha1 Cluster and OpsRequest (KubeBlocks 0.9, which the server still supports; the
#           newest 0.9 release the module proxy serves here)
# Copies the CRD files into ~/.cache/graphdb-server/kubeblocks-crds/<version>/ once; later runs only print the path.
# Installs Debian's golang (bookworm-backports) first when Go is missing and we are root.
# Prints the cache directory (holding v1.0.1/ and v0.9.0/); exits 1 with the reason on stderr (and in
# $ENSURE_KUBEBLOCKS_CRDS_REASON_FILE when set, for the SKIPPED line of scripts/test-kube.sh) when it cannot.
set -eu
VERSIONS="v1.0.1 v0.9.0"
MODULE=github.com/apecloud/kubeblocks
CACHE="${HOME}/.cache/graphdb-server/kubeblocks-crds"
say() { printf '[ensure-kubeblocks-crds] %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  if [ -n "${ENSURE_KUBEBLOCKS_CRDS_REASON_FILE:-}" ]; then printf '%s\n' "$*" >"$ENSURE_KUBEBLOCKS_CRDS_REASON_FILE"; fi
  exit 1
}
cached() { [ -f "${CACHE}/$1/.complete" ]; }

missing=""
for v in $VERSIONS; do cached "$v" || missing="$missing $v"; done
if [ -z "$missing" ]; then echo "$CACHE"; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing golang from bookworm-backports"
    sh "$(dirname "$0")/ensure-system.sh" >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t bookworm-backports golang >/dev/null \
      || fail "Go is missing and 'apt-get install -t bookworm-backports golang' failed"
  else
    fail "Go is missing and cannot be installed here (needs root and apt-get)"
  fi
fi
mkdir -p "$CACHE"
WORK=$(mktemp -d "${CACHE}/.download.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
export GOTOOLCHAIN=local
for v in $missing; do
  say "downloading ${MODULE}@${v} from the Go module proxy (once; cached in ${CACHE}/${v})"
  # Outside any module, so no go.mod of ours is read or changed; Go prints its own error on stderr.
  JSON=$(cd "$WORK" && go mod download -json "${MODULE}@${v}") \
    || fail "'go mod download ${MODULE}@${v}' failed: $(printf '%s' "${JSON:-}" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",*$/\1/p' | head -1)"
  DIR=$(printf '%s\n' "$JSON" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  BASES="${DIR}/config/crd/bases"
  [ -n "$DIR" ] && [ -d "$BASES" ] || fail "${MODULE}@${v} has no config/crd/bases/ (module directory: ${DIR:-none})"
  mkdir -p "$WORK/$v"
  cp "$BASES"/*.yaml "$WORK/$v/"
  chmod -R u+w "$WORK/$v"
  count=$(ls "$WORK/$v" | wc -l)
  [ "$count" -gt 0 ] || fail "${MODULE}@${v}: config/crd/bases/ holds no CRD files"
  printf '%s %s\n' "${MODULE}@${v}" "$(printf '%s\n' "$JSON" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')" \
    >"$WORK/$v/.complete"
  rm -rf "${CACHE:?}/$v"
  mv "$WORK/$v" "${CACHE}/$v"
  say "${v}: ${count} CRD files"
done
echo "$CACHE"
