#!/usr/bin/env bash
# End-to-end on a real Kubernetes cluster made with kind: the CRDs and RateLimitConfigs live in the
# cluster's API server; the operator (kubernetes mode, with leader election) and a ratelimit instance
# (xDS mode, Redis counters) run on this machine against it, exactly as the in-repo tests run them
# against test/kube-apiserver.
#
# CANNOT RUN ON THE PROJECT'S BUILD MACHINES: they have no Docker engine, which kind needs. It needs
# docker, kind, kubectl, redis-server, curl and Node 20 with `npm ci` done. Container images and the Helm
# chart are not used here yet (the packaging issue adds them).
#
# Usage: hack/kind-e2e.sh [cluster-name]   (KEEP_CLUSTER=1 leaves the cluster running afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."

cluster=${1:-portcullis-e2e}
work=$(mktemp -d)
kubeconfig="$work/kubeconfig"
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_CLUSTER:-0}" != 1 ]; then kind delete cluster --name "$cluster" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

for tool in docker kind kubectl redis-server curl node; do
  command -v "$tool" >/dev/null || { echo "kind-e2e: $tool is required" >&2; exit 2; }
done
docker info >/dev/null 2>&1 || { echo "kind-e2e: no Docker engine answers" >&2; exit 2; }

step() { printf '\n== %s\n' "$*"; }
fail() { echo "kind-e2e: FAILED: $*" >&2; exit 1; }

# waits until a command succeeds, up to $1 seconds
until_ok() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

decision() { # domain key value → overallCode and requestsPerUnit of the first status
  curl -s localhost:18080/json -d "{\"domain\":\"$1\",\"descriptors\":[{\"entries\":[{\"key\":\"$2\",\"value\":\"$3\"}]}]}"
}

step "cluster $cluster"
kind create cluster --name "$cluster" --kubeconfig "$kubeconfig" --wait 120s
export KUBECONFIG=$kubeconfig
kubectl create namespace portcullis-system

step "CRDs"
kubectl apply -f crds/
kubectl wait --for condition=established --timeout=60s crd/ratelimitconfigs.portcullis.dev crd/apiroutes.portcullis.dev crd/inboxendpoints.portcullis.dev

step "redis, operator and ratelimit on this machine"
redis-server --port 16379 --save '' --appendonly no >"$work/redis.log" 2>&1 &
pids+=($!)
OPERATOR_SOURCE=kubernetes OPERATOR_NAMESPACE=portcullis-system XDS_HOST=127.0.0.1 XDS_PORT=18000 \
  HEALTH_PORT=18090 METRICS_PORT=19090 LOG_LEVEL=info \
  node_modules/.bin/tsx operator/src/main.ts >"$work/operator.log" 2>&1 &
pids+=($!)
until_ok 60 curl -sf localhost:18090/readyz || { cat "$work/operator.log"; fail "operator not ready"; }
kubectl apply -f examples/resources/
CONFIG_TYPE=GRPC_XDS_SOTW CONFIG_GRPC_XDS_SERVER_URL=127.0.0.1:18000 CONFIG_GRPC_XDS_NODE_ID=kind-e2e \
  BACKEND_TYPE=redis KVSTORE_URL=127.0.0.1:16379 PORT=18080 GRPC_PORT=18081 DEBUG_PORT=16070 LOG_LEVEL=info \
  node_modules/.bin/tsx services/ratelimit/src/main.ts >"$work/ratelimit.log" 2>&1 &
pids+=($!)
until_ok 60 curl -sf localhost:18080/healthcheck || { cat "$work/ratelimit.log"; fail "ratelimit not healthy"; }

step "a RateLimitConfig from the cluster limits requests"
until_ok 10 sh -c "decision messaging to_number 1 | grep -q '\"requestsPerUnit\":100'" || fail "messaging limits not served"
until_ok 30 sh -c "kubectl get rlc messaging -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -q True" ||
  fail "messaging is not Ready"
kubectl get rlc

step "an edit changes the limit"
kubectl patch rlc messaging --type merge -p '{"spec":{"descriptors":[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":7}}]}}'
until_ok 10 sh -c "decision messaging to_number 2 | grep -q '\"requestsPerUnit\":7'" || fail "edit not served"

step "an invalid edit is rejected on the resource and the old limit keeps serving"
kubectl patch rlc messaging --type merge -p '{"spec":{"descriptors":[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":7,"replaces":[{"name":"nobody"}]}}]}}'
until_ok 10 sh -c "kubectl get rlc messaging -o jsonpath='{.status.conditions[?(@.type==\"Accepted\")].reason}' | grep -q Invalid" ||
  fail "invalid edit not reported"
kubectl get rlc messaging -o jsonpath='{.status.conditions[?(@.type=="Accepted")].message}'
echo
decision messaging to_number 3 | grep -q '"requestsPerUnit":7' || fail "old limit no longer served"
kubectl get events --field-selector involvedObject.name=messaging | grep -q InvalidSpec || fail "no Event for the rejection"

step "delete removes the domain"
kubectl delete rlc messaging
until_ok 10 sh -c "decision messaging to_number 4 | grep -q '{\"overallCode\":\"OK\",\"statuses\":\[{\"code\":\"OK\"}\]}'" ||
  fail "domain still limited after delete"

step "the keys Secret and the Lease exist"
kubectl -n portcullis-system get secret portcullis-keys >/dev/null || fail "keys secret missing"
kubectl -n portcullis-system get lease portcullis-operator >/dev/null || fail "lease missing"

printf '\nkind-e2e: all checks passed\n'
