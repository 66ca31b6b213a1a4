#!/usr/bin/env bash
# Installs Schemathesis (PyPI), pinned, into a venv at .cache/schemathesis/<version>/ for the OpenAPI contract
# tests (services/{inbox,gateway}/test/openapi-contract.test.ts), which run .cache/schemathesis/<version>/bin/st.
# A changed pin is a new folder, never a stale install. Idempotent: an existing install is kept.
# Usage: hack/install-schemathesis.sh        (needs python3 ≥ 3.11 with venv; .ci/run installs python3-venv)
set -euo pipefail
cd "$(dirname "$0")/.."

# the one spelling of the pin: lib/testing/src/schemathesis.ts reads this line
version=4.32.5
dir=.cache/schemathesis/$version

if [ -x "$dir/bin/st" ] && "$dir/bin/st" --version >/dev/null 2>&1; then
  echo "schemathesis $version: already installed in $dir"
  exit 0
fi
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  { echo "install-schemathesis: Schemathesis $version needs Python 3.11 or later, not $(python3 --version)" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
python3 -m venv "$dir"
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$version"
"$dir/bin/st" --version
