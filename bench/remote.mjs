// `vox say` through a remote link (ssh forward on loopback, docs/remote.md) vs the local path,
// and the keeper's reconnect time after its ssh is killed. Needs /usr/sbin/sshd; run as root.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const VOX = join(ROOT, 'packages/vox-mcp/dist/vox.cjs');
const VOXD = join(ROOT, 'packages/voxd/dist/main.js');
const N = Number(process.env.N ?? 21);
const dir = mkdtempSync(join(tmpdir(), 'vox-bench-remote-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const keys = join(dir, 'keys');
mkdirSync(keys, { mode: 0o700 });
mkdirSync('/run/sshd', { recursive: true });
for (const k of ['host', 'client']) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, k)]);
writeFileSync(join(keys, 'authorized_keys'), readFileSync(join(keys, 'client.pub')));
const port = 30000 + (process.pid % 20000);
writeFileSync(join(dir, 'sshd_config'), `Port ${port}\nListenAddress 127.0.0.1\nHostKey ${join(keys, 'host')}\nAuthorizedKeysFile ${join(keys, 'authorized_keys')}\nPasswordAuthentication no\nStrictModes no\nUsePAM no\nPidFile ${join(dir, 'sshd.pid')}\n`);
const sshConfig = join(dir, 'ssh_config');
writeFileSync(sshConfig, `Host A\n  HostName 127.0.0.1\n  Port ${port}\n  IdentityFile ${join(keys, 'client')}\n  IdentitiesOnly yes\n  UserKnownHostsFile /dev/null\n  StrictHostKeyChecking no\n  LogLevel ERROR\n`);
const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
const aHome = join(dir, 'a');
const aEnv = { ...process.env, VOX_HOME: aHome, VOX_CONFIG_HOME: join(aHome, 'config'), VOXD_PORT: '0', VOXD_AUDIO: `file:${join(aHome, 'out')}?realtime=0`, VOXD_ENGINE: 'espeak' };
const voxd = spawn(process.execPath, [VOXD], { env: aEnv, stdio: 'ignore' });
const bEnv = { ...process.env, VOX_HOME: join(dir, 'b') };
let log = '';
try {
  for (let i = 0; i < 200 && spawnSync('ssh', ['-F', sshConfig, 'A', 'true']).status !== 0; i++) await sleep(50);
  const keeper = spawn(process.execPath, [VOX, 'remote', 'connect', 'A', '--as', 'B', '--ssh-config', sshConfig, '--vox', `VOX_HOME=${aHome} ${process.execPath} ${VOX}`], { env: bEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  keeper.stderr.on('data', (d) => (log += d));
  const links = () => [...log.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
  while (links().length < 1) await sleep(20);
  const say = (env) => {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [VOX, 'say', '-q', 'ok'], { env: { ...env, VOX_NO_AUTOSTART: '1' } });
    if (r.status !== 0) throw new Error(String(r.stderr));
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const local = [];
  const remote = [];
  say(aEnv); say(bEnv); // warm
  for (let i = 0; i < N; i++) {
    local.push(say({ ...aEnv, VOXD_PORT: '' }));
    remote.push(say(bEnv));
  }
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  const l = median(local);
  const r = median(remote);
  console.log(`vox say, N=${N}: local median ${l.toFixed(1)} ms, remote (ssh forward on loopback) median ${r.toFixed(1)} ms, +${(r - l).toFixed(1)} ms (${(r / l).toFixed(2)}x)`);
  const recon = [];
  for (let i = 0; i < 5; i++) {
    const before = links().length;
    const t = Date.now();
    process.kill(links().at(-1), 'SIGKILL');
    while (links().length === before) await sleep(5);
    recon.push(Date.now() - t);
  }
  console.log(`reconnect after the tunnel's ssh is killed (sshd up), 5 runs: ${recon.join(', ')} ms; median ${median(recon)} ms`);
  keeper.kill('SIGTERM');
} finally {
  voxd.kill('SIGTERM');
  sshd.kill('SIGTERM');
  await sleep(300);
  rmSync(dir, { recursive: true, force: true });
}
