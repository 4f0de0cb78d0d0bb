#!/usr/bin/env bash
# kube-score v1.20.0 (built from hack/tools/kube-score) over the chart's render
# in each mode: any finding at WARNING or CRITICAL fails, except the checks
# ignored below, each answered in charts/listenerset-webhook/values.yaml (its
# comments that start "kube-score"). A new finding, or an ignored check that
# starts failing in a render where it is not ignored, fails `make test-all`.
#
# Usage: hack/chart-score.sh HELM KUBE_SCORE
set -euo pipefail
HELM="$1" KUBE_SCORE="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHART="$ROOT/charts/listenerset-webhook"

# Ignored in every render (reasons in values.yaml):
#   container-image-pull-policy          image.pullPolicy
#   deployment-has-host-podantiaffinity  topologySpread
ALWAYS="container-image-pull-policy deployment-has-host-podantiaffinity"
# Ignored only where networkPolicy.enabled is false (networkPolicy):
NO_POLICY="pod-networkpolicy"

# name | helm flags | checks ignored besides ALWAYS
RENDERS=(
  "cert-manager||$NO_POLICY"
  "self-bootstrapped|--set certManager.enabled=false|$NO_POLICY"
  "cluster-checks, autoscaling|--set certManager.enabled=false --set clusterChecks.enabled=true --set autoscaling.enabled=true|$NO_POLICY"
  "network policy|--set networkPolicy.enabled=true --set networkPolicy.egress[0].ports[0].port=6443|"
  "host network|--set hostNetwork=true|$NO_POLICY"
  "admission.mode=policy|--set admission.mode=policy|$NO_POLICY"
  "admission.mode=both|--set admission.mode=both|$NO_POLICY"
  "audit with reports|--set audit.enabled=true --set audit.reports=true --set clusterChecks.secrets=true|$NO_POLICY"
  "audit, network policy|--set audit.enabled=true --set networkPolicy.enabled=true --set networkPolicy.egress[0].ports[0].port=6443|"
  "audit, admission.mode=policy|--set audit.enabled=true --set admission.mode=policy|$NO_POLICY"
)

failed=0
for r in "${RENDERS[@]}"; do
  IFS='|' read -r name flags ignores <<<"$r"
  args=()
  for c in $ALWAYS $ignores; do args+=(--ignore-test "$c"); done
  # shellcheck disable=SC2086 # flags are words
  if ! out="$("$HELM" template listenerset-webhook "$CHART" --namespace listenerset-webhook --kube-version 1.37.0 --set image.preloaded=true $flags)"; then
    echo "chart-score: $name: helm template failed" >&2; failed=1; continue
  fi
  if res="$("$KUBE_SCORE" score --output-format ci --kubernetes-version v1.37 --exit-one-on-warning "${args[@]}" - <<<"$out")"; then
    echo "chart-score: $name: $(grep -c '^\[OK\]' <<<"$res") checks OK (ignored: ${ALWAYS// /, }${ignores:+, ${ignores// /, }})"
  else
    echo "chart-score: $name: kube-score findings:" >&2
    grep -v '^\[OK\]\|^\[SKIPPED\]' <<<"$res" >&2 || true
    failed=1
  fi
done
exit "$failed"
