# Shared helpers for .ci/run and scripts/ci/*.sh (sourced, not run).
# Every step is bounded by `timeout` and timed; the times are printed as each
# step ends and again as a table at the end of the run.

VOX_CI_CACHE=${VOX_CI_CACHE:-/var/cache/vox-ci}
VOX_CI_TIMES=${VOX_CI_TIMES:-$(mktemp /tmp/vox-ci-times.XXXXXX)}
export VOX_CI_CACHE VOX_CI_TIMES

# step LIMIT NAME CMD... : run CMD under `timeout LIMIT`, print and record its time.
# A failing step stops the run (its status is returned; callers run under set -e).
# The step's own stdout is left alone, so `x=$(step ...)` captures only CMD's output.
step() {
  local limit=$1 name=$2
  shift 2
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  echo "::: ${name}" >&2
  timeout --kill-after=20s "$limit" "$@" || rc=$?
  t1=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
  local verdict=ok
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then verdict="TIMED OUT after $limit"; elif [ "$rc" -ne 0 ]; then verdict="FAILED (exit $rc)"; fi
  printf '%s\t%s\t%s\n' "$name" "$secs" "$verdict" >>"$VOX_CI_TIMES"
  echo "::: ${name}: ${secs}s ${verdict}" >&2
  return "$rc"
}

# stop_steps: end the step this shell is running, for an EXIT trap. A signal
# that ends this shell (a step limit above it, a CI runner's) does not reach
# the step below it: that step's `timeout` has a process group of its own. TERM
# to that timeout ends the step's whole group, so it starts nothing more while
# the trap cleans up. Builtins only: any child of this shell would be signalled.
stop_steps() {
  local p stat fields
  for p in /proc/[0-9]*; do
    read -r stat 2>/dev/null <"$p/stat" || continue
    # shellcheck disable=SC2206
    fields=(${stat##*) })
    [ "${fields[1]:-}" = "$$" ] && kill -TERM "${p#/proc/}" 2>/dev/null
  done
  return 0
}

# failures_file NAME: where the test step NAME writes its failed tests
# (VOX_TEST_FAILURES, scripts/test-failures.mjs), in the folder VOX_CI_FAILURES
# that .ci/run makes.
failures_file() {
  printf '%s/%s\n' "$VOX_CI_FAILURES" "${1//[^A-Za-z0-9._-]/_}"
}

# failed_tests: each test step's failed tests, at the end of the run, where a
# CI page's tail shows them; the full log above has their output.
failed_tests() {
  local f
  [ -n "${VOX_CI_FAILURES:-}" ] || return 0
  for f in "$VOX_CI_FAILURES"/*; do
    [ -s "$f" ] || continue
    echo "::: failed tests: ${f##*/}"
    cat "$f"
  done
  return 0
}

# times_table: the recorded steps with their seconds and the total.
times_table() {
  [ -s "$VOX_CI_TIMES" ] || return 0
  echo "::: time per step"
  awk -F'\t' '{ printf "  %6ss  %-55s %s\n", $2, $1, $3 }' "$VOX_CI_TIMES"
}

# node_lines: the Node majors CI claims (scripts/ci/node-lines), one a line.
node_lines() {
  grep -v '^\s*#' "$(dirname "${BASH_SOURCE[0]}")/node-lines" | tr -s ' \n' '\n' | grep .
}
