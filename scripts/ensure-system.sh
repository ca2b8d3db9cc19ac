#!/bin/sh
# Makes sure this machine has a server that can load the FalkorDB module (Valkey 8 from Debian's
# bookworm-backports suite on Debian 12). Installs it when run as root; otherwise says what to do.
# Exits 0 when a server is there (or not needed), 1 when it could not provide one.
set -eu

redis_is_new_enough() {
  command -v redis-server >/dev/null 2>&1 || return 1
  version=$(redis-server --version 2>/dev/null | sed -n 's/.*v=\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  [ -n "$version" ] || return 1
  set -- $version
  [ "$1" -gt 7 ] || { [ "$1" -eq 7 ] && [ "$2" -ge 2 ]; }
}

say() { printf '[ensure-system] %s\n' "$*" >&2; }

# For the tests (--for-tests): the Kubernetes API double makes its certificate with the openssl CLI, the OAuth
# browser test drives Debian's chromium, and the README's tour (run as written by a test) uses curl and jq.
if [ "${1:-}" = "--for-tests" ]; then
  for package in openssl chromium curl jq; do
    if ! command -v "$package" >/dev/null 2>&1; then
      if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing $package"
        apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >/dev/null
      else
        say "$package is missing and cannot be installed here (needs root and apt-get): apt-get install $package"
      fi
    fi
  done
fi

if [ -n "${FALKORDB_SERVER_BIN:-}" ] || command -v valkey-server >/dev/null 2>&1 || redis_is_new_enough; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  say "No valkey-server (or redis-server >= 7.2) found, and this script cannot install one (needs root and apt-get)."
  say "Install it yourself, e.g. on Debian 12 as root: enable the bookworm-backports suite, then"
  say "  apt-get update && apt-get install -y -t bookworm-backports valkey-server"
  say "or set FALKORDB_SERVER_BIN to such a binary."
  exit 1
fi

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
if [ "$codename" = "bookworm" ]; then
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding Debian's bookworm-backports suite (derived from the existing Debian source)"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      awk 'BEGIN{RS="";ORS="\n\n"} /debian-security/ {next} {sub(/Suites:[^\n]*/, "Suites: bookworm-backports"); print; exit}' \
        /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/backports.sources
    else
      grep -E '^deb [^ ]+ bookworm main' /etc/apt/sources.list | head -n 1 | sed 's/ bookworm main/ bookworm-backports main/' \
        > /etc/apt/sources.list.d/backports.list
    fi
  fi
  say "installing valkey-server from bookworm-backports"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t bookworm-backports valkey-server >/dev/null
else
  say "installing valkey-server"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q valkey-server >/dev/null
fi
command -v valkey-server >/dev/null 2>&1 && say "installed: $(valkey-server --version)"
