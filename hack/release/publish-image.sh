#!/usr/bin/env bash
# Builds one component's image for linux/amd64 and linux/arm64 with docker buildx, pushes it with an SBOM and
# a provenance attestation, and signs the pushed digest keylessly with cosign (the workflow's OIDC identity).
# Needs docker with buildx and QEMU, and cosign; the release workflow sets them up. Not run on the project's
# build machines: they have no Docker engine.
# Usage: hack/release/publish-image.sh <operator|ratelimit|gateway|inbox|inbox-worker> vX.Y.Z
#   REGISTRY=ghcr.io/<owner> (default ghcr.io/portcullis-dev)
set -euo pipefail
cd "$(dirname "$0")/../.."

component=${1:?usage: publish-image.sh <component> vX.Y.Z}
tag=${2:?usage: publish-image.sh <component> vX.Y.Z}
case "$component" in
  operator | ratelimit | gateway | inbox | inbox-worker) ;;
  *) echo "publish-image: unknown component $component" >&2; exit 2 ;;
esac
version=${tag#v}
registry=${REGISTRY:-ghcr.io/portcullis-dev}
image="$registry/portcullis-$component"
revision=$(git rev-parse HEAD)
created=$(git log -1 --format=%cI HEAD)
metadata=$(mktemp)
trap 'rm -f "$metadata"' EXIT

# the Dockerfile's LABELs describe each platform's image; the index of a multi-arch push needs its own
annotations=()
for key in "source=https://github.com/portcullis-dev/portcullis" "licenses=Apache-2.0" \
  "version=$version" "revision=$revision" "created=$created" "title=portcullis-$component"; do
  annotations+=(--annotation "index:org.opencontainers.image.$key")
done

docker buildx build . \
  --target "$component" \
  --platform linux/amd64,linux/arm64 \
  --build-arg VERSION="$version" --build-arg REVISION="$revision" \
  --label org.opencontainers.image.created="$created" \
  "${annotations[@]}" \
  --sbom=true --provenance=mode=max \
  --tag "$image:$version" \
  --metadata-file "$metadata" \
  --push
digest=$(node -e 'console.log(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"))["containerimage.digest"])' "$metadata")
[[ "$digest" == sha256:* ]] || { echo "publish-image: no digest in the build metadata" >&2; exit 1; }
cosign sign --yes "$image@$digest"
echo "$image:$version@$digest"
