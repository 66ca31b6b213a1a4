#!/usr/bin/env bash
# Publishes the npm packages hack/release/build-npm-packages.ts built in <dir> (@portcullis/ratelimit-client,
# @portcullis/inbox-cli) for a release tag. A dry run (`npm publish --dry-run`: what would be published, nothing
# sent) unless NPM_PUBLISH=1 and the tag is a release (vX.Y.Z, no suffix): a pre-release tag rehearses. The
# real publish carries a provenance statement, so it runs only where npm can get one (GitHub Actions with
# `id-token: write`), with the registry token in NODE_AUTH_TOKEN. Prints `<name>@<version>` per package.
# Usage: hack/release/publish-npm.sh vX.Y.Z <dir>
set -euo pipefail

tag=${1:?usage: publish-npm.sh vX.Y.Z <dir>}
dir=${2:?usage: publish-npm.sh vX.Y.Z <dir>}
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  { echo "publish-npm: $tag is not a version tag (vX.Y.Z or vX.Y.Z-pre)" >&2; exit 2; }
version=${tag#v}

flags=(--access public)
if [[ "$version" == *-* ]]; then
  # npm refuses a pre-release under the default dist-tag, `latest`
  flags+=(--tag next)
fi
if [[ "${NPM_PUBLISH:-}" == 1 && "$version" != *-* ]]; then
  flags+=(--provenance)
else
  flags+=(--dry-run)
fi

packages=()
for manifest in "$dir"/*/package.json; do
  [ -f "$manifest" ] || continue
  found=$(node -p 'const m = require(process.argv[1]); m.name + "@" + m.version' "$(realpath "$manifest")")
  [[ "$found" == *"@$version" ]] ||
    { echo "publish-npm: $manifest is $found, the tag is $tag" >&2; exit 1; }
  packages+=("$(dirname "$manifest")")
done
[ "${#packages[@]}" -gt 0 ] || { echo "publish-npm: no packages in $dir (build-npm-packages.ts)" >&2; exit 1; }

for package in "${packages[@]}"; do
  (cd "$package" && npm publish "${flags[@]}" >&2)
  node -p 'const m = require(process.argv[1]); m.name + "@" + m.version' "$(realpath "$package/package.json")"
done
