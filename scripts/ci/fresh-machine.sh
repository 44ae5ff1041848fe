#!/usr/bin/env bash
# fresh-machine.sh: do what a new user does, on a minimal Debian root that has
# nothing but Node.js (docs/ci.md). As a plain user, with a clean environment
# and CI unset, it runs the README's two commands exactly as README.md writes
# them, in a copy of this repository's HEAD (`git archive`: the root has no git):
#   B. no libasound2, no player: the install-and-speak command prints the
#      no-audio message on one stderr line and exits non-zero; MCP speak says
#      nothing will be heard;
#   T. the test command passes, with Claude Code's claude installed beside
#      node (as `npm i -g` puts it) and one core kept busy (busy-core.sh;
#      VOX_CI_BUSY_CORE=0 leaves it idle);
#   A. with the libasound2 runtime library and ALSA_CONFIG_PATH at ALSA's file
#      device: the install-and-speak command puts speech into the captured file;
#   P. outside npx: the README's setup command, then vox and voxd from
#      ~/.local/bin in the home directory (say, status, vox mcp with a real MCP
#      client), then the pinned Claude Code copied in, the plugin installed by
#      setup, `claude mcp list` and a scripted `claude -p` (claude-check.mjs).
# Mounts and every process inside the root are cleaned up however it ends.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/scripts/ci/lib.sh"

# Node 24 (LTS): the official Node 26 binary also needs libatomic.so.1, which a
# minimal Debian root lacks, and that is Node's requirement, not vox's.
major=${VOX_CI_FRESH_NODE:-24}
install_cmd=$(node "$repo/scripts/ci/readme-command.mjs" install)
setup_cmd=$(node "$repo/scripts/ci/readme-command.mjs" setup)
test_cmd=$(node "$repo/scripts/ci/readme-command.mjs" test)
runs=" ${VOX_CI_FRESH_RUNS:-B T A P} "
# T runs the suite beside a CPU-bound loop unless VOX_CI_BUSY_CORE=0.
busy_core=${VOX_CI_BUSY_CORE:-1}
# T and P copy the pinned Claude Code into the root (.ci/run has fetched it already).
claude_bin=
if [[ $runs == *" P "* || $runs == *" T "* ]]; then
  claude_bin=${VOX_CLAUDE_CODE:-$(step 5m "fresh: Claude Code $(cat "$repo/scripts/ci/claude-code-version")" "$repo/scripts/ci/claude-code.sh")}
fi

tarball=$(step 20m "fresh: debian root (debootstrap, cached)" "$repo/scripts/ci/debian-root.sh")
nodedir=$(step 10m "fresh: node $major for the root" "$repo/scripts/ci/node-line.sh" "$major")
npmver=$(npm --version)
npmdir="$VOX_CI_CACHE/npm/$npmver"
if [ ! -f "$npmdir/bin/npm-cli.js" ]; then
  step 5m "fresh: npm $npmver for the root" bash -c '
    set -euo pipefail; mkdir -p "$(dirname "$1")"; tmp=$(mktemp -d "$1.XXXXXX")
    npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "npm@$2" >&2
    rm -rf "$1"; mv "$tmp/node_modules/npm" "$1"; rm -rf "$tmp"' _ "$npmdir" "$npmver"
fi

mkdir -p /var/tmp
root=$(mktemp -d /var/tmp/vox-fresh.XXXXXX)
# root_pids: the processes whose root directory is this root.
root_pids() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
  done
  return 0
}
# kill_root_procs WHY: list and stop every process in the root (TERM, then KILL).
kill_root_procs() {
  local sig pids
  for sig in TERM KILL; do
    pids=$(root_pids)
    [ -n "$pids" ] || return 0
    echo "fresh: $1 (SIG$sig):" >&2
    # shellcheck disable=SC2086
    ps -o pid=,etime=,args= -p $pids >&2 || true
    # shellcheck disable=SC2086
    kill "-$sig" $pids 2>/dev/null || true
    sleep 1
  done
}
cleanup() {
  local rc=$?
  # Killed mid-step: end that step first, or it goes on starting processes in the root.
  stop_steps
  # voxd from a `vox say` whose run failed before stopping it, stray test children.
  kill_root_procs "stopping processes left in the root"
  for m in dev/pts dev sys proc; do
    mountpoint -q "$root/$m" 2>/dev/null && { umount "$root/$m" 2>/dev/null || umount -l "$root/$m"; }
  done
  if findmnt -rn -o TARGET | grep -q "^$root/"; then
    echo "fresh: mounts remain under $root; not deleting it" >&2
  else
    rm -rf --one-file-system "$root"
  fi
  exit "$rc"
}
trap cleanup EXIT

setup_root() {
  set -euo pipefail
  tar --numeric-owner -C "$root" -xpf "$tarball"
  # Node.js as its official tarball lays it out: bin/node, bin/npm, bin/npx,
  # lib/node_modules/npm, include, share.
  mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/usr/local/etc"
  cp "$nodedir/bin/node" "$root/usr/local/bin/node"
  cp -a "$nodedir/include" "$nodedir/share" "$root/usr/local/"
  cp -a "$npmdir" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # What lets npm reach the registry from this network, as the machine has it:
  # its CA bundle and registry, in the root's global npmrc.
  local ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  mkdir -p "$root/etc/ssl/certs"
  cp "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nregistry=%s\n' "$(npm config get registry)" >"$root/usr/local/etc/npmrc"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp /etc/hosts "$root/etc/hosts"
  mount -t proc proc "$root/proc"
  mount -t sysfs sys "$root/sys"
  mount --bind /dev "$root/dev"
  mount --bind /dev/pts "$root/dev/pts"
  chroot "$root" useradd -m -s /bin/bash user
  mkdir "$root/home/user/vox"
  git -C "$repo" archive HEAD | tar -x -C "$root/home/user/vox"
  chroot "$root" chown -R user:user /home/user/vox
  # The promise is "only Node.js": no audio library, no player, no compiler.
  local t
  for t in git python3 make g++ sox aplay paplay pw-play espeak-ng; do
    if chroot "$root" sh -c "command -v $t" >/dev/null; then echo "fresh: the root unexpectedly has $t" >&2; return 1; fi
  done
  if chroot "$root" sh -c 'ls /usr/lib/*/libasound.so.2' >/dev/null 2>&1; then echo "fresh: the root unexpectedly has libasound.so.2" >&2; return 1; fi
  chroot "$root" /usr/local/bin/node --version
}
export root tarball nodedir npmdir repo
export -f setup_root
step 5m "fresh: set up the root (extract, node $major, user, git archive HEAD)" bash -c setup_root

# A shared machine may have something on voxd's default port; the user's voxd
# then gets another one (VOXD_PORT), else it runs on the default as a user's would.
port_env=()
if node -e 'const s=require("net").connect(8421,"127.0.0.1");s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1))'; then
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  echo "fresh: 127.0.0.1:8421 is taken on this machine; the root's voxd uses VOXD_PORT=$port" >&2
  port_env=("VOXD_PORT=$port")
fi

# as_user CMD [ENV=VALUE...]: run CMD in ~/vox as the root's plain user, with a
# clean environment (HOME, USER, PATH, LANG) and no CI variable.
as_user() {
  local cmd=$1
  shift
  chroot --userspec=user:user "$root" /usr/bin/env -i HOME=/home/user USER=user LOGNAME=user SHELL=/bin/bash \
    PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 $port_env_s "$@" /bin/bash -c "cd ~/vox && $cmd"
}
export -f as_user
# as_home CMD [ENV=VALUE...]: as as_user, but in the home directory (not the
# clone, so npx cannot find vox) with ~/.local/bin first on PATH, as a login
# shell has it once the line vox setup prints is added.
as_home() {
  local cmd=$1
  shift
  chroot --userspec=user:user "$root" /usr/bin/env -i HOME=/home/user USER=user LOGNAME=user SHELL=/bin/bash \
    PATH=/home/user/.local/bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 $port_env_s "$@" /bin/bash -c "cd ~ && $cmd"
}
export -f as_home
# Arrays do not cross `bash -c`; pass the optional port as a string.
export port_env_s="${port_env[*]}"

# Stop the user's voxd (auto-started by `vox say`) and check it is gone.
stop_voxd() {
  as_user 'npx vox daemon stop'
  local state="$root/home/user/.local/state/vox/voxd.json"
  [ -f "$state" ] || return 0
  local pid
  pid=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).pid)' "$state")
  ! kill -0 "$pid" 2>/dev/null || { echo "fresh: voxd (pid $pid) still runs after vox daemon stop" >&2; return 1; }
}

# B: nothing can play. One line on stderr (cause and fix), exit non-zero.
run_b() {
  set -uo pipefail
  local rc out=/home/user/b.out err=/home/user/b.err
  echo "\$ $install_cmd"
  as_user "$install_cmd >$out 2>$err"
  rc=$?
  cat "$root$out"
  sed 's/^/stderr: /' "$root$err"
  [ "$rc" -ne 0 ] || { echo "fresh B: \"$install_cmd\" exited 0 with no audio output; it must exit non-zero" >&2; return 1; }
  # The speak half alone, so its stderr is not mixed with npm's.
  as_user "npx vox say 'Hello from vox' >$out 2>$err"
  rc=$?
  local lines
  lines=$(grep -c . "$root$err" || true)
  sed 's/^/vox say stderr: /' "$root$err"
  [ "$rc" -ne 0 ] || { echo "fresh B: vox say exited 0 with no audio output" >&2; return 1; }
  [ "$lines" -eq 1 ] || { echo "fresh B: vox say printed $lines stderr lines; it must print one (cause and fix)" >&2; return 1; }
  grep -qi 'nothing will be heard' "$root$err" && grep -qi 'fix' "$root$err" \
    || { echo "fresh B: the stderr line must say that nothing will be heard, why, and the fix" >&2; return 1; }
  as_user 'node scripts/ci/mcp-speak.mjs unheard' || return 1
  stop_voxd
}
export -f run_b stop_voxd
export install_cmd test_cmd

# The libasound2 runtime library (from the root's apt cache; apt-get as root,
# as a user's sudo would) and ALSA's file device instead of a sound card.
with_sound() {
  chroot "$root" apt-get install -y -qq --no-download --no-install-recommends libasound2 >/dev/null
  cat >"$root/home/user/asound-file.conf" <<'CONF'
pcm.!default {
    type file
    slave { pcm { type null } }
    file { @func getenv vars [ VOX_TEST_ALSA_FILE ] default "/tmp/vox-alsa.raw" }
    format "raw"
}
CONF
}
alsa=(ALSA_CONFIG_PATH=/home/user/asound-file.conf VOX_TEST_ALSA_FILE=/home/user/capture.raw)
export alsa_s="${alsa[*]}"
export -f with_sound

# A: with sound, the install-and-speak command puts speech into the capture.
run_a() {
  set -euo pipefail
  with_sound
  local alsa=($alsa_s)
  echo "\$ $install_cmd"
  as_user "$install_cmd" "${alsa[@]}"
  # vox say returns once voxd queued the text; wait until voxd says it played it.
  as_user 'node scripts/ci/wait-idle.mjs --timeout-ms 60000 -- npx vox status --json' "${alsa[@]}"
  as_user 'node scripts/ci/pcm-check.mjs /home/user/capture.raw --rate 22050 --channels 1 --min-ms 400 --max-ms 5000'
  as_user 'node scripts/ci/mcp-speak.mjs heard' "${alsa[@]}"
  stop_voxd
}
export -f run_a

# P: outside npx, as the README's set-up leaves a user (docs/ci.md).
run_p() {
  set -euo pipefail
  local out=/home/user/p.out link
  local alsa=($alsa_s)
  # No Claude Code yet (T's is gone, whatever T did): setup must say how to add the plugin later.
  rm -f "$root/usr/local/bin/claude"
  # Run alone (VOX_CI_FRESH_RUNS=P), it starts from an installed clone too.
  [ -d "$root/home/user/vox/node_modules" ] || as_user 'npm install --no-audit --no-fund --loglevel=error'
  with_sound
  rm -f "$root/home/user/capture.raw"
  echo "\$ $setup_cmd"
  as_user "$setup_cmd >$out 2>&1" || { cat "$root$out"; return 1; }
  cat "$root$out"
  grep -qF '/home/user/.local/bin is not on PATH' "$root$out" && grep -qF 'export PATH="$HOME/.local/bin:$PATH"' "$root$out" \
    || { echo "fresh P: setup must say that ~/.local/bin is not on PATH, and print the line to add" >&2; return 1; }
  grep -qF 'claude is not on PATH' "$root$out" || { echo "fresh P: without Claude Code, setup must say how to add the plugin later" >&2; return 1; }
  for link in vox:vox-mcp/bin/vox.cjs voxd:voxd/bin/voxd.js; do
    [ "$(readlink "$root/home/user/.local/bin/${link%%:*}")" = "/home/user/vox/packages/${link#*:}" ] \
      || { echo "fresh P: ~/.local/bin/${link%%:*} is not a link to ~/vox/packages/${link#*:}" >&2; return 1; }
  done
  # In ~, outside the clone (no node_modules/.bin for npx): the shell finds both in ~/.local/bin.
  as_home '[ "$(command -v vox)" = /home/user/.local/bin/vox ] && [ "$(command -v voxd)" = /home/user/.local/bin/voxd ] && voxd --help >/dev/null' \
    || { echo "fresh P: vox and voxd are not found on PATH in ~/.local/bin" >&2; return 1; }
  as_home 'vox say "Hello from the PATH"' "${alsa[@]}"
  as_home 'node vox/scripts/ci/wait-idle.mjs --timeout-ms 60000 -- vox status --json' "${alsa[@]}"
  as_home 'node vox/scripts/ci/pcm-check.mjs /home/user/capture.raw --rate 22050 --channels 1 --min-ms 400 --max-ms 5000'
  as_home 'node vox/scripts/ci/mcp-speak.mjs heard --path' "${alsa[@]}"
  # Claude Code, as its npm package installs it: the pinned native binary on PATH.
  cp "$claude_bin" "$root/usr/local/bin/claude"
  chmod 755 "$root/usr/local/bin/claude"
  local offline=(CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1)
  echo "\$ $setup_cmd  # again, with claude on PATH"
  as_user "$setup_cmd >$out 2>&1" "${offline[@]}" || { cat "$root$out"; return 1; }
  cat "$root$out"
  grep -q '^Already linked /home/user/.local/bin/vox ' "$root$out" || { echo "fresh P: a second setup must keep the links" >&2; return 1; }
  grep -q '^Ran: claude plugin install vox@vox' "$root$out" || { echo "fresh P: setup did not install the plugin" >&2; return 1; }
  as_home "claude plugin list >$out 2>&1" "${offline[@]}"
  cat "$root$out"
  grep -A3 'vox@vox' "$root$out" | grep -qF 'Read from: /home/user/vox/plugin' \
    || { echo "fresh P: claude plugin list does not show vox@vox read from the clone" >&2; return 1; }
  as_home 'node vox/scripts/ci/claude-check.mjs' "${alsa[@]}"
  # Route A as docs/claude-code.md writes it, in a Claude Code config of its own
  # (not beside the plugin): vox mcp from PATH, which Claude Code reports as
  # "Executable not found" when vox is not there.
  local route_a=(CLAUDE_CONFIG_DIR=/home/user/.claude-route-a ANTHROPIC_API_KEY=sk-ant-test-not-a-key ANTHROPIC_BASE_URL=http://127.0.0.1:9)
  echo '$ claude mcp add --scope user vox -- vox mcp && claude mcp list'
  as_home "claude mcp add --scope user vox -- vox mcp >/dev/null && claude mcp list >$out 2>&1" "${offline[@]}" "${route_a[@]}"
  cat "$root$out"
  grep -q '^vox: vox mcp - ✔ Connected' "$root$out" || { echo "fresh P: claude mcp list does not show route A's vox mcp connected" >&2; return 1; }
  stop_voxd
}
export -f run_p
export setup_cmd claude_bin

# The runs go on after one fails, so one CI run shows all three; T comes before
# A because A adds libasound2 and T's root must have only Node.js.
# VOX_CI_FRESH_RUNS picks runs (default "B T A P"; read above).
failed=()
[[ $runs != *" B "* ]] || step 15m "fresh B: no libasound2: $install_cmd" bash -c run_b || failed+=(B)
# T: the suite passes, and leaves no process behind in the root. Claude Code
# sits beside node, where `npm i -g @anthropic-ai/claude-code` puts it (a test
# that wants no claude must not find this one), and a CPU-bound loop keeps one
# core busy (a test that waits for a duration fails so); VOX_CI_BUSY_CORE=0
# runs it without.
run_t() {
  set -uo pipefail
  local rc=0 left
  cp "$claude_bin" "$root/usr/local/bin/claude"
  chmod 755 "$root/usr/local/bin/claude"
  # A CPU-bound loop keeps one core busy meanwhile, unless VOX_CI_BUSY_CORE=0 (docs/ci.md, "T, the tests").
  if [ "$busy_core" != 0 ]; then
    "$repo/scripts/ci/busy-core.sh" bash -c 'as_user "$test_cmd"' || rc=1
  else
    as_user "$test_cmd" || rc=1
  fi
  rm -f "$root/usr/local/bin/claude"
  left=$(root_pids)
  [ -z "$left" ] || { kill_root_procs "$test_cmd left processes running in the root"; return 1; }
  return "$rc"
}
export busy_core
export -f run_t root_pids kill_root_procs
t_load=", a busy core"
[ "$busy_core" != 0 ] || t_load=
[[ $runs != *" T "* ]] || step 50m "fresh T: $test_cmd (only Node.js and claude beside node, CI unset$t_load)" bash -c run_t || { failed+=(T); kill_root_procs "stopping what T left"; }
[[ $runs != *" A "* ]] || step 10m "fresh A: libasound2 + ALSA file device: $install_cmd" bash -c run_a || failed+=(A)
[[ $runs != *" P "* ]] || step 10m "fresh P: outside npx: $setup_cmd, vox from ~/.local/bin, the plugin in Claude Code" bash -c run_p || failed+=(P)
if [ ${#failed[@]} -gt 0 ]; then
  echo "fresh: failed runs: ${failed[*]}" >&2
  exit 1
fi
