#!/usr/bin/env bash
# copilot-cli.sh: the pinned GitHub Copilot CLI (agent-cli.sh copilot); prints its binary.
exec "$(dirname "$0")/agent-cli.sh" copilot
