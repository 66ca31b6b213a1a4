#!/usr/bin/env bash
# The GitHub release of a tag, with its notes and files; a tag with a pre-release suffix (v1.2.0-rc.1) makes
# a pre-release. Needs gh and GH_TOKEN (the release workflow's token, contents: write).
# Usage: hack/release/create-github-release.sh vX.Y.Z <notes.md> [file…]
set -euo pipefail

tag=${1:?usage: create-github-release.sh vX.Y.Z <notes.md> [file…]}
notes=${2:?usage: create-github-release.sh vX.Y.Z <notes.md> [file…]}
shift 2
flags=(--verify-tag --title "$tag" --notes-file "$notes")
[[ "$tag" != *-* ]] || flags+=(--prerelease)
gh release create "$tag" "${flags[@]}" "$@"
