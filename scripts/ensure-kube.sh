#!/bin/sh
# Provides etcd and kube-apiserver for the tests against a real Kubernetes API server (npm run test:kube): both are
# built once with the Go toolchain from the Go module proxy (no other download) and cached in ~/.cache/graphdb-server/bin.
# Installs Debian's golang (bookworm-backports) first when Go is missing and we are root.
# Prints two lines, ETCD_BIN='<path>' and KUBE_APISERVER_BIN='<path>' (for `eval`); exits 1 with the reason on stderr
# when it cannot provide them. A cold build takes about 15 minutes on 2 cores; later runs print the cached paths at once.
set -eu
# kube-apiserver from k8s.io/kubernetes: its go.mod replaces every k8s.io/* staging module with ./staging/src/...,
# which only works inside the kubernetes repository; a wrapper module replaces them with the published v0.x tags.
KUBE_VERSION=v1.36.3
STAGING_VERSION=v0.36.3
# The etcd release that this Kubernetes version itself depends on (its go.mod requires go.etcd.io/etcd/server/v3 v3.6.8).
ETCD_VERSION=v3.6.8
CACHE="${HOME}/.cache/graphdb-server/bin"
ETCD="${CACHE}/etcd-${ETCD_VERSION}"
KUBE_APISERVER="${CACHE}/kube-apiserver-${KUBE_VERSION}"
say() { printf '[ensure-kube] %s\n' "$*" >&2; }
# The reason also goes to $ENSURE_KUBE_REASON_FILE when set, for the SKIPPED line of scripts/test-kube.sh.
fail() {
  say "FAILED: $*"
  if [ -n "${ENSURE_KUBE_REASON_FILE:-}" ]; then printf '%s\n' "$*" >"$ENSURE_KUBE_REASON_FILE"; fi
  exit 1
}
# Runs a Go command in a wrapper module; on failure stops, naming the command (Go's own error is printed above it).
in_dir() {
  dir=$1
  shift
  (cd "$dir" && "$@") >&2 || fail "'$*' failed (Go's error is above)"
}
result() { printf "ETCD_BIN='%s'\nKUBE_APISERVER_BIN='%s'\n" "$ETCD" "$KUBE_APISERVER"; }

if [ -x "$ETCD" ] && [ -x "$KUBE_APISERVER" ]; then result; exit 0; fi
# The benchmark uses the binaries only when a test run has built them: it never starts a 15-minute build.
if [ -n "${ENSURE_KUBE_CACHED_ONLY:-}" ]; then fail "not built yet (npm run test:kube builds them)"; fi
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
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ensure-kube.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
say "building with $(go version) (once; cached in ${CACHE})"

if [ ! -x "$ETCD" ]; then
  say "building etcd ${ETCD_VERSION} (go.etcd.io/etcd/server/v3/etcdmain)"
  mkdir -p "$WORK/etcd"
  cat >"$WORK/etcd/main.go" <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  in_dir "$WORK/etcd" go mod init graphdb-server/etcd-build
  in_dir "$WORK/etcd" go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
  in_dir "$WORK/etcd" go build -trimpath -ldflags '-s -w' -o "$WORK/etcd.bin" .
  mv "$WORK/etcd.bin" "$ETCD"
fi

if [ ! -x "$KUBE_APISERVER" ]; then
  say "building kube-apiserver ${KUBE_VERSION} (k8s.io/kubernetes/cmd/kube-apiserver; staging modules at ${STAGING_VERSION})"
  mkdir -p "$WORK/kube"
  KUBE_MOD=$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  [ -n "$KUBE_MOD" ] && [ -f "$KUBE_MOD" ] || fail "go mod download -json k8s.io/kubernetes@${KUBE_VERSION} gave no go.mod"
  # Every `k8s.io/x => ./staging/src/k8s.io/x` of kubernetes' own go.mod becomes `k8s.io/x => k8s.io/x v0.N.P`.
  REPLACES=$(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*$#\1#p' "$KUBE_MOD")
  [ -n "$REPLACES" ] || fail "no staging replace directives found in $KUBE_MOD"
  GO_DIRECTIVE=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$KUBE_MOD")
  {
    printf 'module graphdb-server/kube-apiserver-build\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$GO_DIRECTIVE" "$KUBE_VERSION"
    for m in $REPLACES; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"; done
    printf ')\n'
  } >"$WORK/kube/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n' >"$WORK/kube/tools.go"
  MAJOR=${KUBE_VERSION#v}; MAJOR=${MAJOR%%.*}
  MINOR=${KUBE_VERSION#v*.}; MINOR=${MINOR%%.*}
  LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} -X k8s.io/component-base/version.gitMajor=${MAJOR}"
  LDFLAGS="${LDFLAGS} -X k8s.io/component-base/version.gitMinor=${MINOR} -X k8s.io/component-base/version.gitTreeState=clean"
  in_dir "$WORK/kube" go mod tidy
  in_dir "$WORK/kube" go build -trimpath -ldflags "$LDFLAGS" -o "$WORK/kube-apiserver.bin" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$WORK/kube-apiserver.bin" "$KUBE_APISERVER"
fi
"$ETCD" --version >/dev/null 2>&1 || fail "$ETCD does not run"
"$KUBE_APISERVER" --version >/dev/null 2>&1 || fail "$KUBE_APISERVER does not run"
result
