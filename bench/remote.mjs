// `vox say` through a remote link (ssh forward on loopback, docs/remote.md) vs the local path,
// and the keeper's reconnect time after its ssh is killed. Needs /usr/sbin/sshd; run as root.
import { spawnSync } from 'node:child_process';
import { startRemote, sleep, VOX } from './remote-lib.mjs';

const N = Number(process.env.N ?? 21);
const r0 = await startRemote();
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
  const recon = [];
  for (let i = 0; i < 5; i++) {
    const before = r0.links().length;
    const t = Date.now();
    process.kill(r0.links().at(-1), 'SIGKILL');
    while (r0.links().length === before) await sleep(5);
    recon.push(Date.now() - t);
  }
  console.log(
    `reconnect after the tunnel's ssh is killed (sshd up), 5 runs: ${recon.join(', ')} ms; median ${median(recon)} ms`,
  );
} finally {
  await r0.stop();
}
