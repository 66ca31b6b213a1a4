#!/usr/bin/env bash
# Packages charts/portcullis for a release tag: chart version and appVersion are the tag without its "v", so
# the images the chart pulls by default are <registry>/portcullis-<component>:<version>, the tags
# hack/release/publish-image.sh pushes. Prints the package's path as its last line.
# Usage: hack/release/package-chart.sh vX.Y.Z <out-dir>
#   CHART_REPO=oci://ghcr.io/<owner>/charts also pushes it there (after `helm registry login`).
set -euo pipefail
cd "$(dirname "$0")/../.."

tag=${1:?usage: package-chart.sh vX.Y.Z <out-dir>}
out=${2:?usage: package-chart.sh vX.Y.Z <out-dir>}
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  { echo "package-chart: $tag is not a version tag (vX.Y.Z or vX.Y.Z-pre)" >&2; exit 2; }
version=${tag#v}
helm() { node_modules/.bin/tsx hack/helm.ts "$@"; }

mkdir -p "$out"
helm lint --strict charts/portcullis >&2
helm package charts/portcullis --version "$version" --app-version "$version" --destination "$out" >&2
package="$out/portcullis-$version.tgz"
[ -f "$package" ] || { echo "package-chart: helm wrote no $package" >&2; exit 1; }
if [ -n "${CHART_REPO:-}" ]; then helm push "$package" "$CHART_REPO" >&2; fi
echo "$package"
