#!/usr/bin/env bash
# codex.sh: the pinned Codex CLI (agent-cli.sh codex); prints its binary.
exec "$(dirname "$0")/agent-cli.sh" codex
