/**
 * `vox remote` end to end over a real sshd on 127.0.0.1 (own config, host key
 * and authorized key in a temp dir). Host A is a real voxd with a file sink;
 * host B is the same user with another VOX_HOME, running the real
 * `vox remote connect A` and the real `vox say`. Asserted is what A's voxd
 * got: each text once, under the label "B/…", also across a dropped link.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, removeDir, startDaemon, stopDaemonsUnder, tempDir, vox, VOX, waitFor, type Daemon } from './helpers/daemon.js';

const SSHD = '/usr/sbin/sshd';
const skip = existsSync(SSHD) && spawnSync('ssh', ['-V']).status === 0 ? false : 'openssh-server (/usr/sbin/sshd) or ssh is not installed';
if (skip && process.env.CI === 'true') throw new Error(`remote.e2e needs sshd under CI: ${skip}`);

let dir: string;
let a: Daemon;
let sshd: ChildProcess | undefined;
let sshdPort = 0;
let sshConfig: string;
let bEnv: NodeJS.ProcessEnv;
let keeper: ChildProcess | undefined;
let keeperLog = '';

function startSshd(): Promise<void> {
  sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
  return waitFor(() => spawnSync('ssh', ['-F', sshConfig, 'A', 'true'], { timeout: 5000 }).status === 0 || undefined, 10_000, 'sshd').then(() => undefined);
}

before(async () => {
  if (skip) return;
  dir = tempDir('vox-remote-');
  const keys = join(dir, 'keys');
  mkdirSync(keys, { mode: 0o700 });
  mkdirSync('/run/sshd', { recursive: true });
  for (const k of ['host', 'client']) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, k)]);
  writeFileSync(join(keys, 'authorized_keys'), readFileSync(join(keys, 'client.pub')), { mode: 0o600 });
  sshdPort = 20000 + (process.pid % 20000);
  writeFileSync(
    join(dir, 'sshd_config'),
    [`Port ${sshdPort}`, 'ListenAddress 127.0.0.1', `HostKey ${join(keys, 'host')}`, `AuthorizedKeysFile ${join(keys, 'authorized_keys')}`, 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'StrictModes no', 'UsePAM no', `PidFile ${join(dir, 'sshd.pid')}`, 'AllowTcpForwarding yes', ''].join('\n'),
  );
  sshConfig = join(dir, 'ssh_config');
  writeFileSync(sshConfig, ['Host A', '  HostName 127.0.0.1', `  Port ${sshdPort}`, `  IdentityFile ${join(keys, 'client')}`, '  IdentitiesOnly yes', '  UserKnownHostsFile /dev/null', '  StrictHostKeyChecking no', '  LogLevel ERROR', ''].join('\n'));
  a = await startDaemon({ home: join(dir, 'a') });
  await startSshd();
  bEnv = cleanEnv(join(dir, 'b'), { VOX_SESSION_ID: 'sess01' });
});

after(async () => {
  keeper?.kill('SIGTERM');
  sshd?.kill('SIGTERM');
  if (dir) {
    await stopDaemonsUnder(dir);
    removeDir(dir);
  }
});

/** How A's vox is run over ssh: the same build, A's VOX_HOME. */
const voxOnA = () => `VOX_HOME=${a.home} VOX_CONFIG_HOME=${join(a.home, 'config')} ${process.execPath} ${VOX}`;

async function history(): Promise<{ text: string; session: string; outcome?: string; status?: string }[]> {
  const r = await fetch(`http://127.0.0.1:${a.port}/v1/status?limit=0`, { headers: { authorization: `Bearer ${a.token}` } });
  return ((await r.json()) as { history: any[] }).history;
}

function connect(): ChildProcess {
  keeperLog = '';
  const k = spawn(process.execPath, [VOX, 'remote', 'connect', 'A', '--as', 'B', '--vox', voxOnA(), '--ssh-config', sshConfig], { env: bEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  k.stderr!.on('data', (d: Buffer) => (keeperLog += d.toString()));
  return k;
}

const tunnelPid = () => [...keeperLog.matchAll(/linked to voxd on A \(pid (\d+)\)/g)].map((m) => Number(m[1]));

test('vox say on B is spoken by voxd on A, labelled with B', { skip }, async () => {
  keeper = connect();
  await waitFor(() => tunnelPid().length === 1 || undefined, 20_000, `the link (${keeperLog})`);
  const link = join(bEnv.VOX_HOME!, 'remote.json');
  assert.equal(statSync(link).mode & 0o777, 0o600, 'the token file on B is 0600');
  const r = await vox(['say', 'hello from host bee'], { env: bEnv });
  assert.equal(r.code, 0, r.stderr);
  const h = await waitFor(async () => (await history()).find((e) => e.text === 'hello from host bee'), 10_000, 'speech on A');
  assert.match(h.session, /^B\//, `label ${h.session} names host B`);
});

test('a dropped link: speech is spooled on B and spoken once on A when the link returns', { skip }, async () => {
  // sshd down first, so the keeper cannot reconnect at once; then the tunnel itself.
  sshd!.kill('SIGTERM');
  await new Promise((r) => sshd!.once('exit', r));
  process.kill(tunnelPid().at(-1)!, 'SIGKILL');
  await waitFor(() => keeperLog.includes('dropped') || undefined, 10_000, 'the keeper sees the drop');
  const texts = ['spooled one', 'spooled two', 'spooled three'];
  for (const t of texts) {
    const r = await vox(['say', t], { env: bEnv, timeoutMs: 10_000 });
    assert.equal(r.code, 0, r.stderr);
  }
  assert.equal(readFileSync(join(bEnv.VOX_HOME!, 'remote-spool.jsonl'), 'utf8').trim().split('\n').length, 3);
  // A request that may have arrived before the drop is spooled too; its re-send must not play twice.
  const spooled = readFileSync(join(bEnv.VOX_HOME!, 'remote-spool.jsonl'), 'utf8').split('\n')[0]!;
  writeFileSync(join(bEnv.VOX_HOME!, 'remote-spool.jsonl'), `${spooled}\n`, { flag: 'a' });
  const back = Date.now();
  await startSshd();
  await waitFor(() => tunnelPid().length === 2 || undefined, 20_000, `the link again (${keeperLog})`);
  console.log(`# reconnect after sshd returned: ${Date.now() - back} ms (includes the test's own sshd probe)`);
  await waitFor(async () => {
    const h = await history();
    return texts.every((t) => h.some((e) => e.text === t)) || undefined;
  }, 15_000, 'the spooled speech on A');
  await new Promise((r) => setTimeout(r, 500));
  const h = await history();
  for (const t of texts) assert.equal(h.filter((e) => e.text === t).length, 1, `"${t}" is spoken once`);
  assert.ok(!existsSync(join(bEnv.VOX_HOME!, 'remote-spool.jsonl')), 'the spool is empty');
});

test('a wrong token on B gives VOX_ERR_CLIENT_REMOTE_TOKEN', { skip }, async () => {
  const path = join(bEnv.VOX_HOME!, 'remote.json');
  const good = readFileSync(path, 'utf8');
  const link = JSON.parse(good);
  writeFileSync(path, JSON.stringify({ ...link, token: 'wrongtoken' }), { mode: 0o600 });
  try {
    const r = await vox(['say', 'never spoken'], { env: bEnv });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /VOX_ERR_CLIENT_REMOTE_TOKEN/);
  } finally {
    writeFileSync(path, good, { mode: 0o600 });
  }
});

test('a remote with another vox version is refused with VOX_ERR_CLIENT_REMOTE_VERSION', { skip }, async () => {
  // What `vox remote credentials` of vox 9.9.9 prints.
  const other = `echo '{"version":"9.9.9","port":1,"token":"abc"}'; true`;
  const r = await vox(['remote', 'connect', 'A', '--as', 'B', '--vox', other, '--ssh-config', sshConfig], { env: cleanEnv(join(dir, 'c')), timeoutMs: 20_000 });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /VOX_ERR_CLIENT_REMOTE_VERSION.*9\.9\.9/);
  assert.ok(!existsSync(join(dir, 'c', 'remote.json')), 'no link is written');
});
