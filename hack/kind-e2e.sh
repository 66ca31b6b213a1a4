#!/usr/bin/env bash
# End-to-end on a real Kubernetes cluster made with kind: builds the five images, loads them into the
# cluster, installs the Helm chart (with the bundled Redis), applies examples/resources/, puts Envoy
# (examples/envoy/envoy.yaml) in front of the gateway, then checks a rate-limited request through Envoy,
# an ApiRoute through the gateway, an inbox capture, a RateLimitConfig edit and rejection, a helm upgrade
# and uninstall.
#
# CANNOT RUN ON THE PROJECT'S BUILD MACHINES: they have no Docker engine, which kind and the image builds
# need (CI checks the same chart, manifests and bundles without it: test/helm-chart.test.ts,
# test/helm-install.test.ts, test/dist-bundles.test.ts, test/envoy-example.test.ts). It needs docker, kind, kubectl, curl, Node 20
# with `npm ci` done, and network access for the kind node to pull redis and envoyproxy/envoy images.
#
# Usage: hack/kind-e2e.sh [cluster-name]   (KEEP_CLUSTER=1 leaves the cluster running afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."

cluster=${1:-portcullis-e2e}
ns=portcullis
tag=e2e
registry=localhost/portcullis
envoy_image=${ENVOY_IMAGE:-envoyproxy/envoy:v1.31-latest}
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

for tool in docker kind kubectl curl node; do
  command -v "$tool" >/dev/null || { echo "kind-e2e: $tool is required" >&2; exit 2; }
done
docker info >/dev/null 2>&1 || { echo "kind-e2e: no Docker engine answers" >&2; exit 2; }

step() { printf '\n== %s\n' "$*"; }
fail() { echo "kind-e2e: FAILED: $*" >&2; kubectl -n "$ns" get pods -o wide >&2 || true; exit 1; }
helm() { node_modules/.bin/tsx hack/helm.ts "$@"; }

# waits until a command succeeds, up to $1 seconds
until_ok() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

# kubectl port-forward in the background; waits until the local port answers TCP
forward() { # service local-port remote-port
  kubectl -n "$ns" port-forward "svc/$1" "$2:$3" >"$work/pf-$1.log" 2>&1 &
  pids+=($!)
  until_ok 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$2" || fail "port-forward to $1 did not open"
}

step "cluster $cluster"
kind create cluster --name "$cluster" --kubeconfig "$kubeconfig" --wait 120s
export KUBECONFIG=$kubeconfig

step "images"
REGISTRY=$registry KIND_CLUSTER=$cluster hack/build-images.sh "$tag"

step "helm install (bundled Redis)"
helm install portcullis charts/portcullis --namespace "$ns" --create-namespace --wait --timeout 5m \
  --set image.registry=$registry --set image.tag=$tag --set image.pullPolicy=Never \
  --set redis.bundled.enabled=true --set inbox.publicUrl=http://127.0.0.1:18089 \
  --set inbox.worker.egressAllowPrivate=true ||
  fail "helm install"
kubectl -n "$ns" get pods
kubectl -n "$ns" get secret portcullis-keys >/dev/null || fail "the operator did not create the keys Secret"
kubectl -n "$ns" get lease portcullis-operator >/dev/null || fail "no leader-election Lease"

step "examples"
kubectl apply -f examples/resources/
until_ok 60 sh -c "kubectl get rlc example -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -q True" ||
  fail "RateLimitConfig example is not Ready"
kubectl get ratelimitconfigs,apiroutes,inboxendpoints -A

step "Envoy in front of the gateway, asking the rate-limit service"
kubectl -n "$ns" create configmap envoy --from-file=envoy.yaml=examples/envoy/envoy.yaml
kubectl -n "$ns" apply -f - <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: { name: envoy }
spec:
  selector: { matchLabels: { app: envoy } }
  template:
    metadata: { labels: { app: envoy } }
    spec:
      containers:
        - name: envoy
          image: $envoy_image
          args: [-c, /etc/envoy/envoy.yaml]
          ports: [{ containerPort: 10000 }]
          volumeMounts: [{ name: config, mountPath: /etc/envoy }]
      volumes: [{ name: config, configMap: { name: envoy } }]
---
apiVersion: v1
kind: Service
metadata: { name: envoy }
spec:
  selector: { app: envoy }
  ports: [{ port: 10000, targetPort: 10000 }]
YAML
kubectl -n "$ns" rollout status deploy/envoy --timeout=180s || fail "envoy did not start"
forward envoy 10000 10000
# the example allows 10 requests a minute per client address: the 11th within the minute is refused
codes=""
for _ in $(seq 1 11); do codes+="$(curl -s -o /dev/null -w '%{http_code}' localhost:10000/api/ping) "; done
echo "$codes"
[[ "$codes" == *429* ]] || fail "no 429 through Envoy after 11 requests: $codes"
curl -si localhost:10000/api/ping | grep -qi '^x-ratelimit-limit' || fail "no RateLimit headers through Envoy"

step "an ApiRoute through the gateway"
forward portcullis-gateway 18088 8088
until_ok 30 sh -c "curl -s localhost:18088/api/v1/users/42 | grep -q 'user not found'" || fail "ApiRoute not served"
curl -si localhost:18088/api/v1/users/42 | grep -qi '^ratelimit-limit' || fail "no RateLimit headers on the ApiRoute"

step "an inbox capture"
forward portcullis-inbox 18089 8089
created=$(curl -sf -X POST localhost:18089/api/endpoints) || fail "inbox endpoint not created"
id=$(node -e 'console.log(JSON.parse(process.argv[1]).id)' "$created")
token=$(node -e 'console.log(JSON.parse(process.argv[1]).token)' "$created")
curl -sf -X POST "localhost:18089/api/hook/$id/kind?x=1" -H 'content-type: application/json' -d '{"hello":"kind"}' >/dev/null ||
  fail "capture refused"
curl -sf "localhost:18089/api/endpoints/$id/requests" -H "authorization: Bearer $token" | grep -q '"nestedPath":"/kind"' ||
  fail "capture not listed"
curl -sf localhost:18089/ | grep -q '<div id="app">' || fail "web inspector not served"

step "a RateLimitConfig edit is served, an invalid one is rejected on the resource"
kubectl patch rlc messaging --type merge -p '{"spec":{"descriptors":[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":7,"replaces":[{"name":"nobody"}]}}]}}'
until_ok 30 sh -c "kubectl get rlc messaging -o jsonpath='{.status.conditions[?(@.type==\"Accepted\")].reason}' | grep -q Invalid" ||
  fail "invalid edit not reported"
kubectl get events --field-selector involvedObject.name=messaging | grep -q InvalidSpec || fail "no Event for the rejection"

step "helm upgrade and uninstall"
helm upgrade portcullis charts/portcullis --namespace "$ns" --reuse-values --set ratelimit.replicas=3 --wait --timeout 5m ||
  fail "helm upgrade"
[ "$(kubectl -n "$ns" get deploy portcullis-ratelimit -o jsonpath='{.status.readyReplicas}')" = 3 ] || fail "upgrade not rolled out"
helm uninstall portcullis --namespace "$ns" --wait || fail "helm uninstall"
kubectl get crd ratelimitconfigs.portcullis.dev >/dev/null || fail "helm removed the CRDs (it must not)"

printf '\nkind-e2e: all checks passed\n'
