#!/bin/sh
# `promtool check rules` on the chart's alerts: renders the PrometheusRule with helm, writes its spec (a Prometheus
# rules file) to a temporary file and checks it. promtool comes from $PROMTOOL_BIN, or is built once from the Go
# module proxy into ~/.cache/graphdb-server/bin (a long build: Prometheus is large). Exits non-zero when the check
# fails or promtool cannot be had.
set -eu
cd "$(dirname "$0")/.."
PATH="$(sh scripts/ensure-node.sh):$PATH"
PROMETHEUS_VERSION=v0.316.0
CACHE="${HOME}/.cache/graphdb-server/bin"
PROMTOOL="${PROMTOOL_BIN:-${CACHE}/promtool-${PROMETHEUS_VERSION}}"
if [ ! -x "$PROMTOOL" ]; then
  echo "[check-chart-rules] building promtool ${PROMETHEUS_VERSION} from the Go module proxy (once)" >&2
  mkdir -p "$CACHE/build"
  GOBIN="$CACHE/build" GOTOOLCHAIN=local go install "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}" >&2
  mv "$CACHE/build/promtool" "$PROMTOOL"
fi
HELM=$(sh scripts/ensure-helm.sh)
RULES=$(mktemp --suffix=.yaml)
trap 'rm -f "$RULES"' EXIT
"$HELM" template graphdb-admin-server helm/graphdb-admin-server --namespace graphdb-system \
  --set image.repository=registry.example.com/graphdb-server --set metrics.prometheusRule.enabled=true \
  --show-only templates/prometheusrule.yaml \
  | node --input-type=module -e "
import { parse, stringify } from 'yaml';
let text = '';
for await (const chunk of process.stdin) text += chunk;
process.stdout.write(stringify(parse(text).spec));
" >"$RULES"
"$PROMTOOL" check rules "$RULES"
