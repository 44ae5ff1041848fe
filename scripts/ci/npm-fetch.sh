#!/usr/bin/env bash
# npm-fetch.sh DIR SPEC: install the npm package SPEC (name@version) into DIR,
# whole or not at all: into a temporary folder beside DIR, then moved into
# place, so a cut download never leaves a DIR that looks installed. For the
# pinned CLIs the tests run (claude-code.sh, agent-cli.sh), cached under
# $VOX_CI_CACHE; --ignore-scripts, since their packages ship what they run.
set -euo pipefail
dir=$1
spec=$2
mkdir -p "$(dirname "$dir")"
tmp=$(mktemp -d "$(dirname "$dir")/.install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error "$spec" >&2
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
