#!/usr/bin/env bash
# After a failed hack/kind-e2e.sh (run with KEEP_CLUSTER=1): the cluster's events, the state of every pod,
# the logs of every container in the portcullis namespace and kind's node logs, into one folder for the
# workflow to upload. Collects what it can and never fails the job on its own.
# Usage: hack/release/collect-kind-logs.sh <cluster> <out-dir>
set -uo pipefail

cluster=${1:?usage: collect-kind-logs.sh <cluster> <out-dir>}
out=${2:?usage: collect-kind-logs.sh <cluster> <out-dir>}
mkdir -p "$out"
kubeconfig="$out/kubeconfig"
if ! kind get kubeconfig --name "$cluster" >"$kubeconfig" 2>"$out/kind-get-kubeconfig.err"; then
  echo "collect-kind-logs: no cluster $cluster (see $out/kind-get-kubeconfig.err)" >&2
  exit 0
fi
export KUBECONFIG=$kubeconfig
kubectl get events -A --sort-by=.lastTimestamp >"$out/events.txt" 2>&1
kubectl get all,ratelimitconfigs,apiroutes,inboxendpoints -A -o wide >"$out/resources.txt" 2>&1
kubectl -n portcullis describe pods >"$out/pods-describe.txt" 2>&1
for pod in $(kubectl -n portcullis get pods -o name 2>/dev/null); do
  name=${pod#pod/}
  kubectl -n portcullis logs "$pod" --all-containers --prefix >"$out/logs-$name.txt" 2>&1
  kubectl -n portcullis logs "$pod" --all-containers --prefix --previous >"$out/logs-$name-previous.txt" 2>/dev/null ||
    rm -f "$out/logs-$name-previous.txt"
done
kind export logs "$out/kind" --name "$cluster" >/dev/null 2>&1
rm -f "$kubeconfig"
echo "collect-kind-logs: wrote $out"
