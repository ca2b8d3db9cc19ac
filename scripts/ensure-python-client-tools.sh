#!/bin/sh
# Prints the path of a virtualenv holding openapi-python-client (pinned), creating it under
# ~/.cache/graphdb-server/ on first use; later runs reuse it. The generated client's own runtime dependencies
# (httpx, attrs, python-dateutil) come with the generator. A venv left half-built by an interrupted run has no
# `.complete` marker and is built again.
set -eu
VERSION=0.29.1
VENV="${HOME}/.cache/graphdb-server/python-client-${VERSION}"
if [ ! -f "$VENV/.complete" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==${VERSION}" >&2
  touch "$VENV/.complete"
fi
printf '%s\n' "$VENV"
