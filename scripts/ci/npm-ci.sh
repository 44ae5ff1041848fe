#!/usr/bin/env bash
# npm-ci.sh: `npm ci` with the node first on PATH, failing if npm prints any
# warning (an engine warning, a deprecation, an install script it skipped: a
# supported line must install cleanly), or if node_modules grows past its
# budget (VOX_CI_MODULES_MB, default 210 MB on disk: issue 19 item 10's 200 MB,
# raised for the D-Bus library of MPRIS, issue 33: 197 MB before it, 202 after).
set -euo pipefail
log=$(mktemp /tmp/vox-ci-npm.XXXXXX)
trap 'rm -f "$log"' EXIT
budget=${VOX_CI_MODULES_MB:-210}
echo "node $(node --version), npm $(npm --version), nodedir ${npm_config_nodedir:-default}"
npm ci --no-audit --no-fund 2>&1 | tee "$log"
if grep -qi '^npm warn' "$log"; then
  echo "npm-ci: npm printed warnings on Node $(node --version):" >&2
  grep -i -A3 '^npm warn' "$log" >&2
  exit 1
fi
size=$(du -sm node_modules | cut -f1)
echo "npm-ci: node_modules is $size MB on disk (budget $budget MB)"
if [ "$size" -gt "$budget" ]; then
  echo "npm-ci: node_modules is $size MB, over its budget of $budget MB; du -sm node_modules/* | sort -n | tail shows the largest" >&2
  exit 1
fi
