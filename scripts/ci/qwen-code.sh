#!/usr/bin/env bash
# qwen-code.sh: the pinned Qwen Code (agent-cli.sh qwen); prints its cli.js.
exec "$(dirname "$0")/agent-cli.sh" qwen
