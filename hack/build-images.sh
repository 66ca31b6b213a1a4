#!/usr/bin/env bash
# Builds the five images (Dockerfile targets) with one tag:
#   <registry>/portcullis-<operator|ratelimit|gateway|inbox|inbox-worker>:<tag>
# Usage: hack/build-images.sh [tag]   REGISTRY=ghcr.io/you PUSH=1 KIND_CLUSTER=name (loads them into kind)
#
# Needs a Docker engine, which the project's build machines do not have: there, test/dist-bundles.test.ts
# checks what the images run (the bundles on plain Node with production dependencies only).
set -euo pipefail
cd "$(dirname "$0")/.."

tag=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
registry=${REGISTRY:-ghcr.io/portcullis-dev}
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
command -v docker >/dev/null || { echo "build-images: docker is required" >&2; exit 2; }

for target in operator ratelimit gateway inbox inbox-worker; do
  image="$registry/portcullis-$target:$tag"
  echo "== $image"
  docker build --target "$target" --build-arg VERSION="$tag" --build-arg REVISION="$revision" -t "$image" .
  if [ "${PUSH:-0}" = 1 ]; then docker push "$image"; fi
  if [ -n "${KIND_CLUSTER:-}" ]; then kind load docker-image "$image" --name "$KIND_CLUSTER"; fi
done
