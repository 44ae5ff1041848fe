#!/usr/bin/env node
// voxd at rest (issue 23): its RSS once idle against an idle node, in the
// same run, and the first request's latency against another build.
//   - idle: voxd as a user runs it (engine auto, the null sink) 15 s after it
//     listens (past its first idle check, idle-trim.ts), against `node -e`
//     that waits as long. Budget: voxd <= 2 x node.
//   - first request: a fresh voxd, then POST /v1/speak {wait: true} of one
//     sentence, timed from the request to the answer (played, file sink
//     without real time), interleaved with the same on BENCH_BASE_VOXD (another
//     build's packages/voxd/dist/main.js; omitted without it). Budget: head
//     median <= base median + 20 ms.
//   - PSS, private memory (USS) and RSS from /proc/PID/smaps_rollup (issue
//     34: PSS <= 25 MB, RSS <= 1.6 x node), at rest and BENCH_IDLE_MS after
//     one POST /v1/speak {wait: true}; PSS shares the node binary's pages
//     among the node processes running, so only same-run figures compare.
//   - after a request, the desktop parts (issue 33): no session bus and the
//     microphone watch off, against a real `dbus-daemon --session` (MPRIS
//     served after the utterance) and a real PulseAudio with a null sink (the
//     watch's `pactl subscribe` running). Budget: <= +5 MB of RSS. Skipped
//     without dbus-daemon, pulseaudio or pactl.
// Also the threads at rest, and RSS with VOXD_ENGINE=espeak (the embedded
// engine warmed at boot). NODE_OPTIONS and NODE_EXTRA_CA_CERTS are stripped
// on every side (lib.mjs cleanEnv). Never fails on a figure.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, median, report, round, startVoxd, VOXD } from './lib.mjs';

const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BASE = process.env.BENCH_BASE_VOXD;

function status(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN) / 1024;
  return {
    rssMb: round(kb('VmRSS'), 1),
    anonMb: round(kb('RssAnon'), 1),
    fileMb: round(kb('RssFile'), 1),
    threads: Number(/Threads:\s+(\d+)/.exec(s)[1]),
  };
}
/** PSS, private (USS) and RSS in MB from smaps_rollup. */
function rollup(pid) {
  const t = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(t)?.[1] ?? NaN) / 1024;
  return {
    pssMb: round(kb('Pss'), 1),
    ussMb: round(kb('Private_Clean') + kb('Private_Dirty'), 1),
    rssMb: round(kb('Rss'), 1),
  };
}
const threadNames = (pid) =>
  readdirSync(`/proc/${pid}/task`).map((t) => readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function idleNode() {
  const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { env: cleanEnv(), stdio: 'ignore' });
  await sleep(IDLE_MS);
  const s = { ...status(p.pid), ...rollup(p.pid) };
  p.kill();
  return s;
}

async function idleVoxd(engine, build = VOXD, { env = {}, request = false } = {}) {
  const d = await startVoxd({ audio: 'null', env: { VOXD_ENGINE: engine, ...env }, voxd: build });
  try {
    if (request) {
      const r = await d.api('POST', '/v1/speak', { text: 'One utterance, then at rest.', wait: true });
      if (r.body?.status !== 'played') throw new Error(`a request: ${JSON.stringify(r.body)}`);
      if (env.DBUS_SESSION_BUS_ADDRESS) {
        const q = (await d.api('GET', '/v1/status')).body.quiet;
        if (!q.mpris.served) throw new Error(`MPRIS not served: ${JSON.stringify(q.mpris)}`);
        if (q.microphone.watch !== 'pactl' || !q.microphone.detail.startsWith('watching'))
          throw new Error(`the microphone watch does not run: ${JSON.stringify(q.microphone)}`);
      }
    }
    await sleep(IDLE_MS);
    return { ...status(d.pid), ...rollup(d.pid), names: [...new Set(threadNames(d.pid))].join(',') };
  } finally {
    await d.stop();
  }
}

const onPath = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;

/** A real session bus and a real PulseAudio (a null sink) in `dir`, as test/daemon's desktop tests start them. */
async function desktop(dir) {
  const address = `unix:path=${join(dir, 'bus')}`;
  const bus = spawn('dbus-daemon', ['--session', '--nofork', `--address=${address}`, '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((r) => bus.stdout.once('data', r));
  const run = join(dir, 'run');
  mkdirSync(run);
  chmodSync(run, 0o700);
  const socket = join(run, 'native');
  const paEnv = cleanEnv({ XDG_RUNTIME_DIR: run, HOME: dir, PULSE_SERVER: `unix:${socket}` });
  const pulse = spawn(
    'pulseaudio',
    [
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '-n',
      '--load=module-null-sink sink_name=vox_null',
      `--load=module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
    ],
    { env: paEnv, stdio: 'ignore' },
  );
  for (let i = 0; i < 200 && spawnSync('pactl', ['info'], { env: paEnv, stdio: 'ignore' }).status !== 0; i++)
    await sleep(100);
  const stop = (p) => new Promise((r) => (p.exitCode !== null ? r() : (p.once('exit', r), p.kill())));
  return {
    env: { DBUS_SESSION_BUS_ADDRESS: address, PULSE_SERVER: paEnv.PULSE_SERVER, XDG_RUNTIME_DIR: run },
    close: () => Promise.all([stop(bus), stop(pulse)]),
  };
}

async function firstRequest(voxd) {
  const out = mkdtempSync(join(tmpdir(), 'vox-bench-first-'));
  const d = await startVoxd({ audio: `file:${out}?realtime=0`, env: { VOXD_ENGINE: 'auto' }, voxd });
  try {
    const t0 = performance.now();
    const r = await d.api('POST', '/v1/speak', { text: 'The first request of the day.', wait: true });
    const ms = performance.now() - t0;
    if (r.body?.status !== 'played') throw new Error(`first request: ${JSON.stringify(r.body)}`);
    return { ms, engine: r.body.engine };
  } finally {
    await d.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

const [node, voxd, base] = await Promise.all([idleNode(), idleVoxd('auto'), BASE ? idleVoxd('auto', BASE) : undefined]);
report({
  bench: 'idle RSS: voxd (engine auto) vs an idle node',
  idleMs: IDLE_MS,
  idleNode: node,
  voxd,
  ...(base ? { baseVoxd: base } : {}),
  ratio: round(voxd.rssMb / node.rssMb),
  rssMb: voxd.rssMb,
  pssMb: voxd.pssMb,
  ussMb: voxd.ussMb,
  budgetRatio: 1.6,
  budgetPssMb: 25,
  withinBudget: voxd.rssMb <= 1.6 * node.rssMb && voxd.pssMb <= 25,
});

// After a request: plain, and with the desktop parts running, beside an idle node.
const canDesktop = ['dbus-daemon', 'pulseaudio', 'pactl'].every(onPath);
const plainEnv = { DBUS_SESSION_BUS_ADDRESS: '', VOXD_QUIET_MICROPHONE: 'off' };
const deskDir = mkdtempSync(join(tmpdir(), 'vox-bench-desktop-'));
const desk = canDesktop ? await desktop(deskDir) : undefined;
try {
  const [node2, plain, withDesktop] = await Promise.all([
    idleNode(),
    idleVoxd('auto', VOXD, { env: plainEnv, request: true }),
    desk ? idleVoxd('auto', VOXD, { env: { ...desk.env, VOXD_QUIET_MICROPHONE: 'auto' }, request: true }) : undefined,
  ]);
  report({
    bench: 'idle RSS after a request: voxd (engine auto, no bus, no microphone watch) vs an idle node',
    idleMs: IDLE_MS,
    idleNode: node2,
    voxd: plain,
    ratio: round(plain.rssMb / node2.rssMb),
    rssMb: plain.rssMb,
    pssMb: plain.pssMb,
    ussMb: plain.ussMb,
    budgetRatio: 1.6,
    budgetPssMb: 25,
    withinBudget: plain.rssMb <= 1.6 * node2.rssMb && plain.pssMb <= 25,
  });
  if (withDesktop)
    report({
      bench: 'idle RSS after a request: MPRIS on a session bus and the microphone watch (pactl) against neither',
      idleMs: IDLE_MS,
      voxd: withDesktop,
      rssMb: withDesktop.rssMb,
      rssDeltaMb: round(withDesktop.rssMb - plain.rssMb, 1),
      ussDeltaMb: round(withDesktop.ussMb - plain.ussMb, 1),
      pssDeltaMb: round(withDesktop.pssMb - plain.pssMb, 1),
      budgetDeltaMb: 5,
      withinBudget: withDesktop.rssMb - plain.rssMb <= 5,
    });
  else process.stderr.write('idle-rss: no dbus-daemon, pulseaudio or pactl: the desktop variant is skipped\n');
} finally {
  await desk?.close();
  rmSync(deskDir, { recursive: true, force: true });
}
const embedded = await idleVoxd('espeak');
report({
  bench: 'idle RSS: voxd with the embedded engine as the default (warmed at boot)',
  idleMs: IDLE_MS,
  voxd: embedded,
  ratioToNode: round(embedded.rssMb / node.rssMb),
});

const times = { head: [], ...(BASE ? { base: [] } : {}) };
let engine;
for (let i = 0; i < RUNS; i++) {
  for (const side of i % 2 ? ['base', 'head'] : ['head', 'base']) {
    if (!times[side]) continue;
    const r = await firstRequest(side === 'head' ? VOXD : BASE);
    times[side].push(r.ms);
    engine = r.engine;
  }
}
report({
  bench: 'first request after start: POST /v1/speak wait, request to answer',
  engine,
  runs: RUNS,
  headMedianMs: round(median(times.head)),
  ...(BASE
    ? {
        baseMedianMs: round(median(times.base)),
        deltaMs: round(median(times.head) - median(times.base)),
        budgetDeltaMs: 20,
        withinBudget: median(times.head) - median(times.base) <= 20,
      }
    : {}),
});
