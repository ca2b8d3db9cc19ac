#!/bin/sh
# Checks the chart's alert rules: renders the PrometheusRule with helm and writes its spec (a Prometheus rules file)
# to a temporary file, or takes the rules file given as the argument. Then:
# - with promtool at hand ($PROMTOOL_BIN, or promtool v0.316.0 cached in ~/.cache/graphdb-server/bin): first feeds it a
#   rule with a broken expression, which it must refuse (so a promtool that accepts anything cannot pass), then runs
#   `promtool check rules` on the rules;
# - otherwise: the same two steps with scripts/check-rules-structure.mjs (the rules file's structure, and every
#   expression parsed by Prometheus' own PromQL grammar; no type checks).
# The first line of output says which check ran. promtool is never built here unless asked with --build: building
# Prometheus takes about 90 minutes on two cores, far more than a test run may spend.
# Usage: sh scripts/check-chart-rules.sh [--build] [rules.yaml]
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
PROMETHEUS_VERSION=v0.316.0
CACHE="${HOME}/.cache/graphdb-server/bin"
PROMTOOL="${PROMTOOL_BIN:-${CACHE}/promtool-${PROMETHEUS_VERSION}}"
BUILD=''
if [ "${1:-}" = '--build' ]; then
  BUILD=1
  shift
fi
if [ ! -x "$PROMTOOL" ] && [ -n "$BUILD" ]; then
  echo "[check-chart-rules] building promtool ${PROMETHEUS_VERSION} from the Go module proxy (once)" >&2
  mkdir -p "$CACHE/build"
  GOBIN="$CACHE/build" GOTOOLCHAIN=local go install "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}" >&2
  mv "$CACHE/build/promtool" "$PROMTOOL"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ $# -gt 0 ]; then
  RULES="$1"
  WHAT="$1"
else
  RULES="$WORK/rules.yaml"
  WHAT="the chart's PrometheusRule"
  HELM=$(sh scripts/ensure-helm.sh)
  "$HELM" template graphdb-admin-server helm/graphdb-admin-server --namespace graphdb-system \
    --set image.repository=registry.example.com/graphdb-server --set metrics.prometheusRule.enabled=true \
    --show-only templates/prometheusrule.yaml \
    | node --input-type=module -e "
import { parse, stringify } from 'yaml';
let text = '';
for await (const chunk of process.stdin) text += chunk;
process.stdout.write(stringify(parse(text).spec));
" >"$RULES"
fi

# A rule whose expression lacks a closing parenthesis: the checker must refuse it.
cat >"$WORK/broken.yaml" <<'RULES'
groups:
  - name: broken
    rules:
      - alert: Broken
        expr: sum(rate(graphdb_http_requests_total[5m]) > 0
        for: 5m
RULES

if [ -x "$PROMTOOL" ]; then
  echo "[check-chart-rules] promtool check rules (${PROMTOOL}) on ${WHAT}"
  if "$PROMTOOL" check rules "$WORK/broken.yaml" >"$WORK/broken.out" 2>&1; then
    echo "[check-chart-rules] FAILED: promtool accepted a rule with a broken expression" >&2
    exit 1
  fi
  echo "[check-chart-rules] promtool refuses a broken expression: $(grep -m 1 -i 'error\|parse' "$WORK/broken.out" | sed 's/^ *//')"
  "$PROMTOOL" check rules "$RULES"
else
  echo "[check-chart-rules] promtool not at hand (${PROMTOOL} missing; sh scripts/check-chart-rules.sh --build builds it): checking the structure and PromQL syntax of ${WHAT} instead (scripts/check-rules-structure.mjs)"
  if node scripts/check-rules-structure.mjs "$WORK/broken.yaml" >"$WORK/broken.out" 2>&1; then
    echo "[check-chart-rules] FAILED: the structural check accepted a rule with a broken expression" >&2
    exit 1
  fi
  echo "[check-chart-rules] the structural check refuses a broken expression: $(head -n 1 "$WORK/broken.out" | sed 's/^.*broken.yaml: //')"
  node scripts/check-rules-structure.mjs "$RULES"
fi
