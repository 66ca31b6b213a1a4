#!/usr/bin/env bash
# Release notes in Markdown for a tag: the commit subjects since the previous version tag, parents before
# children (merges left out: they repeat their branch's commits), then how to install that version. With no
# earlier tag, every commit.
# Usage: hack/release/release-notes.sh vX.Y.Z   (run where the tags are fetched: actions/checkout fetch-depth: 0)
#   OWNER=<github owner> names the registry in the install lines (default portcullis-dev).
set -euo pipefail

tag=${1:?usage: release-notes.sh vX.Y.Z}
owner=${OWNER:-portcullis-dev}
git rev-parse --verify --quiet "refs/tags/$tag" >/dev/null || { echo "release-notes: no tag $tag" >&2; exit 2; }
previous=$(git describe --tags --abbrev=0 --match 'v[0-9]*' "$tag^" 2>/dev/null || true)
range=$tag
[ -z "$previous" ] || range="$previous..$tag"

echo "## Changes"
echo
if [ -n "$previous" ]; then echo "Since $previous:"; else echo "The first release:"; fi
echo
git log --no-merges --topo-order --reverse --format='- %s (%h)' "$range"
echo
echo "## Install"
echo
echo '```sh'
echo "helm install portcullis oci://ghcr.io/$owner/charts/portcullis --version ${tag#v} -n portcullis --create-namespace"
echo '```'
echo
echo "Images: \`ghcr.io/$owner/portcullis-<operator|ratelimit|gateway|inbox|inbox-worker>:${tag#v}\` (linux/amd64, linux/arm64),"
echo "signed with cosign (keyless), with an SBOM and a provenance attestation each."
