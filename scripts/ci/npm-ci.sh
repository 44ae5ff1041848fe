#!/usr/bin/env bash
# npm-ci.sh: `npm ci` with the node first on PATH, failing if npm prints an
# engine warning (a supported line must install cleanly).
set -euo pipefail
log=$(mktemp /tmp/vox-ci-npm.XXXXXX)
trap 'rm -f "$log"' EXIT
echo "node $(node --version), npm $(npm --version), nodedir ${npm_config_nodedir:-default}"
npm ci --no-audit --no-fund 2>&1 | tee "$log"
if grep -q 'EBADENGINE' "$log"; then
  echo "npm-ci: npm printed engine warnings on Node $(node --version):" >&2
  grep -A3 'EBADENGINE' "$log" >&2
  exit 1
fi
