#!/usr/bin/env bash
# opencode.sh: the pinned opencode (agent-cli.sh opencode); prints its binary.
exec "$(dirname "$0")/agent-cli.sh" opencode
