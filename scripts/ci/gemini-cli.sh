#!/usr/bin/env bash
# gemini-cli.sh: the pinned Gemini CLI (agent-cli.sh gemini); prints its gemini.js.
exec "$(dirname "$0")/agent-cli.sh" gemini
