#!/usr/bin/env bash
# claude-code.sh: make the pinned Claude Code (scripts/ci/claude-code-version)
# available and print the path of its native binary. It is not a dependency of
# vox: a user never installs it with vox, and only the tests and benches that
# run the real Claude Code need it. Cached under $VOX_CI_CACHE/claude-code/VERSION;
# installed with --ignore-scripts, since the per-platform package already holds
# the binary that the wrapper's postinstall would copy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(tr -d ' \n' <"$here/claude-code-version")
cache=${VOX_CI_CACHE:-/var/cache/vox-ci}/claude-code
dir="$cache/$version"
bin=$(node "$here/claude-code-bin.mjs" "$dir" 2>/dev/null || true)
if [ -z "$bin" ]; then
  "$here/npm-fetch.sh" "$dir" "@anthropic-ai/claude-code@${version}"
  bin=$(node "$here/claude-code-bin.mjs" "$dir")
fi
[ "$("$bin" --version 2>/dev/null | cut -d' ' -f1)" = "$version" ] || { echo "claude-code: $bin is not Claude Code $version" >&2; exit 1; }
echo "$bin"
