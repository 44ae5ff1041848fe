// `vox say` through a remote link (ssh forward on loopback, docs/remote.md) vs the local path,
// the keeper's reconnect time after its ssh is killed, and `vox hook` against a frozen tunnel (its ssh stopped).
// Needs /usr/sbin/sshd; run as root.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRemote, sleep, VOX } from './remote-lib.mjs';

const N = Number(process.env.N ?? 21);
const RECONNECTS = Number(process.env.BENCH_RECONNECTS ?? 8);
const HOOKS = Number(process.env.BENCH_HOOKS ?? 5);
// BENCH_BEFORE: a packages/vox-mcp directory (bin/ and dist/) of an older build to compare the link's recovery with.
const before = process.env.BENCH_BEFORE;
const payload = readFileSync(new URL('../test/fixtures/hooks/notification-permission.json', import.meta.url), 'utf8');
const r0 = await startRemote();
const r1 = before ? await startRemote({ vox: join(before, 'dist/vox.cjs') }) : undefined;
try {
  const say = (env) => {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [VOX, 'say', '-q', 'ok'], { env: { ...env, VOX_NO_AUTOSTART: '1' } });
    if (r.status !== 0) throw new Error(String(r.stderr));
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const local = [];
  const remote = [];
  say(r0.aClientEnv);
  say(r0.bEnv); // warm
  for (let i = 0; i < N; i++) {
    local.push(say(r0.aClientEnv));
    remote.push(say(r0.bEnv));
  }
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  const l = median(local);
  const r = median(remote);
  console.log(
    `vox say, N=${N}: local median ${l.toFixed(1)} ms, remote (ssh forward on loopback) median ${r.toFixed(1)} ms, +${(r - l).toFixed(1)} ms (${(r / l).toFixed(2)}x)`,
  );
  // The keeper's reconnect, and `vox hook` against a frozen tunnel, of this build and (BENCH_BEFORE) an older
  // one, alternated so that both meet the same load.
  const builds = [['after', r0], ...(before ? [['before', r1]] : [])];
  const recon = Object.fromEntries(builds.map(([name]) => [name, []]));
  const hook = Object.fromEntries(builds.map(([name]) => [name, []]));
  for (let i = 0; i < RECONNECTS; i++) {
    for (const [name, r] of i % 2 ? [...builds].reverse() : builds) {
      const links = r.links().length;
      const t = Date.now();
      process.kill(r.tunnel(), 'SIGKILL');
      while (r.links().length === links) await sleep(5);
      recon[name].push(Date.now() - t);
    }
  }
  for (let i = 0; i < HOOKS; i++) {
    for (const [name, r] of i % 2 ? [...builds].reverse() : builds) {
      const links = r.links().length;
      process.kill(r.tunnel(), 'SIGSTOP');
      const t = process.hrtime.bigint();
      const h = spawnSync(process.execPath, [r.vox, 'hook', 'Notification'], { env: r.bEnv, input: payload });
      hook[name].push(Math.round(Number(process.hrtime.bigint() - t) / 1e6));
      if (h.status !== 0) throw new Error(`vox hook exited ${h.status}: ${h.stderr}`);
      // The keeper kills the frozen ssh and links again.
      while (r.links().length === links) await sleep(5);
    }
  }
  for (const [name] of builds) {
    console.log(
      `${name}: reconnect after the tunnel's ssh is killed (sshd up), ${RECONNECTS} runs: ${recon[name].join(', ')} ms; median ${median(recon[name])} ms, max ${Math.max(...recon[name])} ms`,
    );
    console.log(
      `${name}: vox hook Notification against a frozen tunnel (ssh stopped), ${HOOKS} runs: ${hook[name].join(', ')} ms; median ${median(hook[name])} ms, max ${Math.max(...hook[name])} ms`,
    );
  }
} finally {
  await r1?.stop();
  await r0.stop();
}
