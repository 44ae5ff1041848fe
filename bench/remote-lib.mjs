// For the remote benches: a real sshd on 127.0.0.1 (own keys and config), a
// real voxd as host A, and `vox remote connect A` as host B (another VOX_HOME).
// Needs /usr/sbin/sshd and ssh; run as root (sshd's privilege separation).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
export const VOX = join(ROOT, 'packages/vox-mcp/dist/vox.cjs');
const VOXD = join(ROOT, 'packages/voxd/dist/main.js');
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let started = 0;

/** `audio`: A's sink (default null); `vox`: the vox.cjs that runs on both hosts. Resolves once B's link is up. */
export async function startRemote({ audio = 'null', vox = VOX } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vox-bench-remote-'));
  const keys = join(dir, 'keys');
  mkdirSync(keys, { mode: 0o700 });
  mkdirSync('/run/sshd', { recursive: true });
  for (const k of ['host', 'client']) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, k)]);
  writeFileSync(join(keys, 'authorized_keys'), readFileSync(join(keys, 'client.pub')));
  const port = 30000 + ((process.pid + started++) % 20000);
  writeFileSync(
    join(dir, 'sshd_config'),
    `Port ${port}\nListenAddress 127.0.0.1\nHostKey ${join(keys, 'host')}\nAuthorizedKeysFile ${join(keys, 'authorized_keys')}\nPasswordAuthentication no\nStrictModes no\nUsePAM no\nPidFile ${join(dir, 'sshd.pid')}\n`,
  );
  const sshConfig = join(dir, 'ssh_config');
  writeFileSync(
    sshConfig,
    `Host A\n  HostName 127.0.0.1\n  Port ${port}\n  IdentityFile ${join(keys, 'client')}\n  IdentitiesOnly yes\n  UserKnownHostsFile /dev/null\n  StrictHostKeyChecking no\n  LogLevel ERROR\n`,
  );
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
  const aHome = join(dir, 'a');
  const aEnv = cleanEnv({
    VOX_HOME: aHome,
    VOX_CONFIG_HOME: join(aHome, 'config'),
    VOXD_PORT: '0',
    VOXD_AUDIO: audio,
    VOXD_ENGINE: 'espeak',
  });
  const voxd = spawn(process.execPath, [VOXD], { env: aEnv, stdio: 'ignore' });
  const bEnv = cleanEnv({ VOX_HOME: join(dir, 'b') });
  let log = '';
  const links = () => [...log.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
  for (let i = 0; i < 200 && spawnSync('ssh', ['-F', sshConfig, 'A', 'true']).status !== 0; i++) await sleep(50);
  const keeper = spawn(
    process.execPath,
    [
      vox,
      'remote',
      'connect',
      'A',
      '--as',
      'B',
      '--ssh-config',
      sshConfig,
      '--vox',
      `VOX_HOME=${aHome} ${process.execPath} ${vox}`,
    ],
    { env: bEnv, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  keeper.stderr.on('data', (d) => (log += d));
  for (let i = 0; links().length < 1; i++) {
    if (i > 1000) throw new Error(`no link: ${log}`);
    await sleep(20);
  }
  const state = JSON.parse(readFileSync(join(aHome, 'voxd.json'), 'utf8'));
  const token = readFileSync(join(aHome, 'token'), 'utf8').trim();
  const link = JSON.parse(readFileSync(join(bEnv.VOX_HOME, 'remote.json'), 'utf8'));
  return {
    aEnv,
    /** A client's environment on A (VOX_HOME only, as a hook has it). */
    aClientEnv: cleanEnv({ VOX_HOME: aHome, VOX_CONFIG_HOME: join(aHome, 'config') }),
    bEnv,
    port: state.port,
    token,
    socket: link.socket,
    links,
    vox,
    /** The keeper's ssh that holds the forward now. */
    tunnel: () => links().at(-1),
    log: () => log,
    async stop() {
      keeper.kill('SIGTERM');
      voxd.kill('SIGTERM');
      sshd.kill('SIGTERM');
      await sleep(300);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
