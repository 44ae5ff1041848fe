#!/usr/bin/env bash
# agent-cli.sh codex|gemini|copilot|opencode|qwen: make the pinned Codex CLI
# (scripts/ci/codex-version), Gemini CLI (gemini-cli-version), Copilot CLI
# (copilot-cli-version), opencode (opencode-version) or Qwen Code
# (qwen-code-version) available and print its entry (agent-cli-bin.mjs). None is a dependency of vox: only the tests
# that run the real CLI need them (test/*-cli.e2e). Cached
# under $VOX_CI_CACHE/<name>/VERSION; --ignore-scripts, since the packages
# ship what they run (the Codex, Copilot and opencode binaries are in their
# per-platform packages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "$1" in
  codex) name=codex; pkg=@openai/codex; version=$(tr -d ' \n' <"$here/codex-version") ;;
  gemini) name=gemini-cli; pkg=@google/gemini-cli; version=$(tr -d ' \n' <"$here/gemini-cli-version") ;;
  copilot) name=copilot-cli; pkg=@github/copilot; version=$(tr -d ' \n' <"$here/copilot-cli-version") ;;
  opencode) name=opencode; pkg=opencode-ai; version=$(tr -d ' \n' <"$here/opencode-version") ;;
  qwen) name=qwen-code; pkg=@qwen-code/qwen-code; version=$(tr -d ' \n' <"$here/qwen-code-version") ;;
  *) echo "usage: agent-cli.sh codex|gemini|copilot|opencode|qwen" >&2; exit 2 ;;
esac
cache=${VOX_CI_CACHE:-/var/cache/vox-ci}/$name
dir="$cache/$version"
bin=$(node "$here/agent-cli-bin.mjs" "$1" "$dir" 2>/dev/null || true)
if [ -z "$bin" ]; then
  "$here/npm-fetch.sh" "$dir" "${pkg}@${version}"
  bin=$(node "$here/agent-cli-bin.mjs" "$1" "$dir")
fi
case "$1" in
  codex) got=$("$bin" --version 2>/dev/null | awk '{print $NF}') ;;
  opencode) got=$("$bin" --version 2>/dev/null | head -n 1) ;;
  copilot) got=$("$bin" --version 2>/dev/null | head -n 1 | awk '{print $NF}' | sed 's/\.$//') ;;
  *) got=$(node "$bin" --version 2>/dev/null) ;;
esac
[ "$got" = "$version" ] || { echo "agent-cli: $bin is not $pkg $version (it says ${got:-nothing})" >&2; exit 1; }
echo "$bin"
