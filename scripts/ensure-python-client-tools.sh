#!/bin/sh
# Prints the path of a virtualenv holding openapi-python-client and mypy (both pinned), creating it under
# ~/.cache/graphdb-server/ on first use; later runs reuse it. test/clients/python-client.test.ts generates a client
# with the one and type-checks its session with the other. The generated client's runtime dependencies (httpx, attrs)
# come with the generator. A venv left half-built by an interrupted run has no `.complete` marker and is built again.
# Needs python3 (3.11 or newer, the generated client's minimum) with its venv module; without them this fails, and so
# does the test, saying why.
set -eu
GENERATOR_VERSION=0.29.1
MYPY_VERSION=2.4.1
VENV="${HOME}/.cache/graphdb-server/python-client-${GENERATOR_VERSION}-mypy-${MYPY_VERSION}"
if [ ! -f "$VENV/.complete" ]; then
  command -v python3 >/dev/null || { echo 'python3 is not installed: the Python client test needs Python 3.11 or newer' >&2; exit 1; }
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    { echo "python3 is $(python3 --version 2>&1): the generated Python client needs 3.11 or newer" >&2; exit 1; }
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "openapi-python-client==${GENERATOR_VERSION}" "mypy==${MYPY_VERSION}" >&2
  touch "$VENV/.complete"
fi
printf '%s\n' "$VENV"
