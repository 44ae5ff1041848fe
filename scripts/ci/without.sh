#!/usr/bin/env bash
# without.sh TOOL PACKAGE-GLOB COMMAND: run COMMAND as a machine where the optional
# npm dependency PACKAGE-GLOB (e.g. "sherpa-onnx*") failed to install. Its
# packages are moved out of node_modules for the run and put back after, also
# when COMMAND fails or the run is killed. VOX_TEST_ABSENT=TOOL lets the tests
# that need TOOL skip under CI=true (test/helpers/tools.ts), and fails them if
# TOOL is still usable.
set -euo pipefail
tool=$1 glob=$2 cmd=$3
aside=$(mktemp -d "${TMPDIR:-/tmp}/vox-ci-without.XXXXXX")
restore() {
  shopt -s nullglob dotglob
  for p in "$aside"/*; do mv "$p" node_modules/; done
  rmdir "$aside"
}
trap restore EXIT
trap 'exit 143' TERM INT HUP
shopt -s nullglob
moved=(node_modules/$glob)
shopt -u nullglob
[ ${#moved[@]} -gt 0 ] || { echo "without: no node_modules/$glob to move aside" >&2; exit 1; }
mv "${moved[@]}" "$aside"/
echo "without: moved aside ${moved[*]}" >&2
VOX_TEST_ABSENT=$tool bash -c "$cmd"
