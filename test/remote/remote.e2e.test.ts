/**
 * `vox remote` end to end over a real sshd on 127.0.0.1 (own config, host key
 * and authorized key in a temp dir). Host A is a real voxd with a file sink;
 * host B is the same user with another VOX_HOME, running the real
 * `vox remote connect A` and the real `vox say`. Asserted is what A's voxd
 * got: each text once, under the label "B/…", also across a dropped link.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cleanEnv,
  removeDir,
  startDaemon,
  stopDaemonsUnder,
  tempDir,
  vox,
  VOX,
  waitFor,
  type Daemon,
} from '../helpers/daemon.js';
import { connectKeeper, sshd, sshSkip, type Keeper, type Sshd } from '../helpers/sshd.js';

const skip = sshSkip('remote.e2e');

let dir: string;
let a: Daemon;
let ssh: Sshd;
let bEnv: NodeJS.ProcessEnv;
let keeper: Keeper | undefined;

before(async () => {
  if (skip) return;
  dir = tempDir('vox-remote-');
  ssh = sshd(dir, 20000);
  a = await startDaemon({ home: join(dir, 'a') });
  await ssh.start();
  bEnv = cleanEnv(join(dir, 'b'), { VOX_SESSION_ID: 'sess01' });
});

after(async () => {
  await keeper?.stop();
  await ssh?.stop();
  if (dir) {
    await stopDaemonsUnder(dir);
    removeDir(dir);
  }
});

/** How A's vox is run over ssh: the same build, A's VOX_HOME. */
const voxOnA = () => `VOX_HOME=${a.home} VOX_CONFIG_HOME=${join(a.home, 'config')} ${process.execPath} ${VOX}`;

async function history(): Promise<{ text: string; session: string; outcome?: string; status?: string }[]> {
  const r = await fetch(`http://127.0.0.1:${a.port}/v1/status?limit=0`, {
    headers: { authorization: `Bearer ${a.token}` },
  });
  return ((await r.json()) as { history: any[] }).history;
}

const connect = () => connectKeeper(VOX, bEnv, voxOnA(), ssh.sshConfig);
const tunnelPid = () => keeper!.tunnels();
const keeperLog = () => keeper!.log();

test('vox say on B is spoken by voxd on A, labelled with B', { skip }, async () => {
  keeper = connect();
  await waitFor(() => tunnelPid().length === 1 || undefined, 20_000, `the link (${keeperLog()})`);
  const link = join(bEnv.VOX_HOME!, 'remote.json');
  assert.equal(statSync(link).mode & 0o777, 0o600, 'the token file on B is 0600');
  const r = await vox(['say', 'hello from host bee'], { env: bEnv });
  assert.equal(r.code, 0, r.stderr);
  const h = await waitFor(
    async () => (await history()).find((e) => e.text === 'hello from host bee'),
    10_000,
    'speech on A',
  );
  assert.match(h.session, /^B\//, `label ${h.session} names host B`);
});

test('a dropped link: speech is spooled on B and spoken once on A when the link returns', { skip }, async () => {
  // sshd down first, so the keeper cannot reconnect at once; then the tunnel itself.
  await ssh.stop();
  process.kill(tunnelPid().at(-1)!, 'SIGKILL');
  await waitFor(() => keeperLog().includes('dropped') || undefined, 10_000, 'the keeper sees the drop');
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
  await ssh.start();
  await waitFor(() => tunnelPid().length === 2 || undefined, 20_000, `the link again (${keeperLog()})`);
  console.log(`# reconnect after sshd returned: ${Date.now() - back} ms (includes the test's own sshd probe)`);
  await waitFor(
    async () => {
      const h = await history();
      return texts.every((t) => h.some((e) => e.text === t)) || undefined;
    },
    15_000,
    'the spooled speech on A',
  );
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
  const r = await vox(['remote', 'connect', 'A', '--as', 'B', '--vox', other, '--ssh-config', ssh.sshConfig], {
    env: cleanEnv(join(dir, 'c')),
    timeoutMs: 20_000,
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /VOX_ERR_CLIENT_REMOTE_VERSION.*9\.9\.9/);
  assert.ok(!existsSync(join(dir, 'c', 'remote.json')), 'no link is written');
});

test(
  'a stale voxd.json on B (a local voxd that died) does not shadow the link: speech goes to A, no local voxd starts',
  { skip },
  async () => {
    const state = JSON.parse(readFileSync(join(a.home, 'voxd.json'), 'utf8'));
    // A port nothing listens on and a pid that is not running.
    const stale = JSON.stringify({ ...state, port: 1, pid: 2 ** 22 + 7 });
    const path = join(bEnv.VOX_HOME!, 'voxd.json');
    writeFileSync(path, stale, { mode: 0o600 });
    try {
      const r = await vox(['say', 'past a stale state file'], { env: bEnv, timeoutMs: 20_000 });
      assert.equal(r.code, 0, r.stderr);
      const h = await waitFor(
        async () => (await history()).find((e) => e.text === 'past a stale state file'),
        10_000,
        'speech on A',
      );
      assert.match(h.session, /^B\//);
      assert.equal(readFileSync(path, 'utf8'), stale, 'no local voxd started (it would have rewritten voxd.json)');
    } finally {
      rmSync(path, { force: true });
    }
  },
);

test(
  'connect refuses while a local voxd runs for the same VOX_HOME (its clients would speak locally)',
  { skip },
  async () => {
    const local = await startDaemon({ home: join(dir, 'd') });
    try {
      const r = await vox(['remote', 'connect', 'A', '--as', 'D', '--vox', voxOnA(), '--ssh-config', ssh.sshConfig], {
        env: cleanEnv(join(dir, 'd')),
        timeoutMs: 20_000,
      });
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        new RegExp(`VOX_ERR_CLIENT_USAGE.*a voxd runs on this host for this VOX_HOME \\(pid ${local.pid}\\)`),
      );
      assert.ok(!existsSync(join(dir, 'd', 'remote.json')), 'no link is written');
    } finally {
      await local.stop();
    }
  },
);

/** One process's /proc stat: command name, state, parent and whether it has a controlling terminal; undefined once gone. */
function procStat(pid: number | string): { comm: string; state: string; ppid: number; tty: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, ppid, , , tty] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { comm, state: state!, ppid: Number(ppid), tty: Number(tty) !== 0 };
  } catch {
    return undefined;
  }
}

/** Live processes under `root` (its descendants), from /proc: pid, command name, and whether one has a controlling terminal. */
function descendants(root: number): { pid: number; comm: string; tty: boolean }[] {
  const all = new Map<number, { ppid: number; comm: string; tty: boolean; state: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = procStat(name);
    if (p) all.set(Number(name), p);
  }
  const under = (pid: number): boolean => {
    for (let p = all.get(pid)?.ppid, hops = 0; p !== undefined && hops < 64; p = all.get(p)?.ppid, hops++)
      if (p === root) return true;
    return false;
  };
  return [...all]
    .filter(([pid, p]) => p.state !== 'Z' && under(pid))
    .map(([pid, p]) => ({ pid, comm: p.comm, tty: p.tty }));
}

// sshd sets TCP_NODELAY only for a session with a pty (remote/keeper.ts forwardArgs): without it, an
// answer close behind another waited ~40 ms for B's delayed ACK (bench/remote-hook.mjs counted the tail).
test(
  'the forward holds a session with a pty on A, and nothing of it stays on A once the keeper stops',
  { skip },
  async () => {
    const env = cleanEnv(join(dir, 'pty'));
    // The other tests' keeper holds a session of its own.
    const others = new Set(descendants(ssh.pid()!).map((p) => p.pid));
    const k = connectKeeper(VOX, env, voxOnA(), ssh.sshConfig);
    let held: { pid: number; tty: boolean } | undefined;
    try {
      await waitFor(() => k.tunnels().length === 1 || undefined, 20_000, `the link (${k.log()})`);
      held = await waitFor(
        () => descendants(ssh.pid()!).find((p) => p.comm === 'cat' && !others.has(p.pid)) ?? undefined,
        10_000,
        'the session on A',
      );
      assert.equal(held.tty, true, 'the session on A has a terminal');
      const r = await vox(['say', 'through a session with a terminal'], { env });
      assert.equal(r.code, 0, r.stderr);
      await waitFor(
        async () => (await history()).find((e) => e.text === 'through a session with a terminal'),
        10_000,
        'speech on A',
      );
    } finally {
      await k.stop();
    }
    await waitFor(
      () => !descendants(ssh.pid()!).some((p) => p.pid === held?.pid) || undefined,
      10_000,
      'the session on A to end',
    );
  },
);

test("where A's sshd refuses a pty (PermitTTY no), the forward runs without one and says so", { skip }, async () => {
  const notty = join(dir, 'notty');
  mkdirSync(notty);
  const strict = sshd(notty, 50000, ['PermitTTY no']);
  await strict.start();
  const env = cleanEnv(join(dir, 'notty-b'));
  const k = connectKeeper(VOX, env, voxOnA(), strict.sshConfig);
  try {
    await waitFor(() => k.tunnels().length === 1 || undefined, 30_000, `the link (${k.log()})`);
    assert.match(k.log(), /refuses a pty/);
    assert.equal(
      descendants(strict.pid()!).some((p) => p.comm === 'cat'),
      false,
      'no session command runs on A',
    );
    const r = await vox(['say', 'through a forward with no terminal'], { env });
    assert.equal(r.code, 0, r.stderr);
    await waitFor(
      async () => (await history()).find((e) => e.text === 'through a forward with no terminal'),
      10_000,
      'speech on A',
    );
  } finally {
    await k.stop();
    await strict.stop();
  }
});

/** Running, not a zombie (a killed keeper's ssh is reparented to a pid 1 that may never reap it). */
function running(pid: number): boolean {
  const p = procStat(pid);
  return p !== undefined && p.state !== 'Z';
}

test(
  'a keeper killed outright leaves its ssh and its session on A; the next connect ends them, and so does disconnect',
  { skip },
  async () => {
    const env = cleanEnv(join(dir, 'orphan'));
    const others = new Set(descendants(ssh.pid()!).map((p) => p.pid));
    const session = () => descendants(ssh.pid()!).find((p) => p.comm === 'cat' && !others.has(p.pid));
    const first = connectKeeper(VOX, env, voxOnA(), ssh.sshConfig);
    await waitFor(() => first.tunnels().length === 1 || undefined, 20_000, `the link (${first.log()})`);
    const tunnel = first.tunnels()[0]!;
    const held = await waitFor(() => session(), 10_000, 'the session on A');
    first.proc.kill('SIGKILL');
    await first.stop();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(
      running(tunnel),
      true,
      'ssh outlives a keeper killed with SIGKILL (it does not end a terminal session when its stdin closes)',
    );
    const second = connectKeeper(VOX, env, voxOnA(), ssh.sshConfig);
    try {
      await waitFor(() => second.tunnels().length === 1 || undefined, 20_000, `the new link (${second.log()})`);
      assert.match(second.log(), new RegExp(`ended the ssh \\(pid ${tunnel}\\) that a keeper no longer running`));
      await waitFor(() => !running(tunnel) || undefined, 10_000, 'the orphaned ssh to end');
      await waitFor(
        () => !descendants(ssh.pid()!).some((p) => p.pid === held.pid) || undefined,
        10_000,
        'its session on A to end',
      );
      const r = await vox(['say', 'after an orphaned tunnel'], { env });
      assert.equal(r.code, 0, r.stderr);
      await waitFor(
        async () => (await history()).find((e) => e.text === 'after an orphaned tunnel'),
        10_000,
        'speech on A',
      );
    } finally {
      second.proc.kill('SIGKILL');
      await second.stop();
    }
    // Killed outright again: disconnect ends what it left.
    const left = second.tunnels().at(-1)!;
    const gone = await vox(['remote', 'disconnect'], { env });
    assert.equal(gone.code, 0, gone.stderr);
    assert.match(gone.stderr, new RegExp(`ended the ssh \\(pid ${left}\\)`));
    await waitFor(() => !running(left) || undefined, 10_000, 'the ssh disconnect ended');
    assert.equal(existsSync(join(env.VOX_HOME!, 'remote.json')), false);
  },
);
