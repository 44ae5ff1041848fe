#!/usr/bin/env bash
# busy-core.sh CMD...: run CMD with one core kept busy beside it (a CPU-bound
# loop), as on a loaded machine, where a test that waits for a duration
# instead of a state fails. The loop starts before CMD and is killed after it,
# whatever happens (CMD fails, this script is signalled or times out); CMD's
# exit status is this script's.
set -uo pipefail
node -e 'for (;;);' &
busy=$!
stop() {
  # Every job, not only a recorded pid: a signal between the command's fork and
  # `cmd=$!` left the command running (seen on a loaded CI run).
  local jobs
  jobs=$(jobs -p)
  [ -z "$jobs" ] || kill -TERM $jobs 2>/dev/null
  kill -KILL "$busy" 2>/dev/null
  wait "$busy" 2>/dev/null
  return 0
}
trap stop EXIT
trap 'exit 143' TERM INT HUP
echo "busy-core: a CPU-bound loop (pid $busy) runs beside: $*" >&2
# In the background, so that a signal to this script is acted on at once; stdin kept (not /dev/null).
VOX_CI_BUSY_PID=$busy "$@" <&0 &
wait "$!"
exit "$?"
