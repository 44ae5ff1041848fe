/**
 * `vox remote` acceptance over a real sshd on 127.0.0.1 (helpers/sshd.ts):
 * host A is a real voxd with a real-time file sink (under a descriptor limit,
 * so that its connection cap is small), host B another VOX_HOME running the
 * real `vox remote connect A`, `vox say`, `vox hook`, `vox mcp` (through the
 * MCP SDK's Client), `vox status` and `vox doctor`. Asserted is what A's voxd
 * got and played (its history, its WAVs), and what B's clients said.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  cleanEnv,
  FIXTURES,
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

const skip = sshSkip('remote-link.e2e');
let dir: string;
let a: Daemon;
let ssh: Sshd;
let bEnv: NodeJS.ProcessEnv;
let keeper: Keeper;
let flood: { refusedButSpoken: string[]; acceptedDelta: number; answeredAccepted: number } | undefined;

before(async () => {
  if (skip) return;
  dir = tempDir('vox-remote-link-');
  ssh = sshd(dir, 40000);
  // 256 descriptors: voxd holds at most 128 connections, so a flood from B meets that cap.
  a = await startDaemon({
    home: join(dir, 'a'),
    wrap: existsSync('/usr/bin/prlimit') ? ['prlimit', '--nofile=256:256', '--'] : [],
  });
  await ssh.start();
  bEnv = cleanEnv(join(dir, 'b'), { VOX_SESSION_ID: 'sess02' });
  keeper = connect();
  await waitFor(() => keeper.tunnels().length === 1 || undefined, 20_000, 'the link');
});

after(async () => {
  await keeper?.stop();
  await ssh?.stop();
  if (dir) {
    await stopDaemonsUnder(dir);
    removeDir(dir);
  }
});

const voxOnA = () => `VOX_HOME=${a.home} VOX_CONFIG_HOME=${join(a.home, 'config')} ${process.execPath} ${VOX}`;
const connect = () => connectKeeper(VOX, bEnv, voxOnA(), ssh.sshConfig);
const spoolFile = () => join(bEnv.VOX_HOME!, 'remote-spool.jsonl');

async function history(): Promise<{ text: string; session?: string; outcome: string }[]> {
  return (await a.api('GET', '/v1/status')).body.history;
}

/** Each text in A's history exactly once, played, and (given the count before) one WAV more on A for each. */
async function spokenOnce(texts: string[], wavsBefore?: number): Promise<void> {
  await waitFor(
    async () => {
      const h = await history();
      return (
        texts.every((t) => h.some((e) => e.text === t && e.outcome !== 'queued' && e.outcome !== 'playing')) ||
        undefined
      );
    },
    30_000,
    `${texts.join(', ')} on A`,
  );
  await a.idle();
  const h = await history();
  for (const t of texts) {
    const got = h.filter((e) => e.text === t);
    assert.equal(got.length, 1, `"${t}" is in A's history once: ${JSON.stringify(got)}`);
    assert.equal(got[0]!.outcome, 'played', `"${t}" was played`);
    assert.match(got[0]!.session ?? '', /^B\//, 'labelled with host B');
  }
  if (wavsBefore !== undefined)
    assert.equal(a.wavs().length - wavsBefore, texts.length, 'one WAV on A for each, none twice');
}

test('an MCP speak on B (vox mcp through the SDK Client) is heard on A, labelled with B', { skip }, async () => {
  const wavs = a.wavs().length;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [VOX, 'mcp'],
    cwd: dir,
    env: bEnv as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vox-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = (await client.callTool(
      { name: 'speak', arguments: { text: 'the model speaks from host bee' } },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    assert.notEqual(result.isError, true, text);
  } finally {
    await client.close();
  }
  await spokenOnce(['the model speaks from host bee'], wavs);
});

test('vox status and vox doctor on B show the link: connected, host, keeper, spool', { skip }, async () => {
  const st = await vox(['status'], { env: bEnv });
  assert.equal(st.code, 0, st.stderr);
  assert.match(
    st.stdout,
    new RegExp(`remote: linked to A as B, connected \\(keeper pid ${keeper.proc.pid}\\), spool empty`),
  );
  const json = await vox(['status', '--json'], { env: bEnv });
  const body = JSON.parse(json.stdout);
  assert.equal(body.remote.connected, true);
  assert.equal(body.remote.host, 'A');
  assert.deepEqual(body.remote.spool, { entries: 0, bytes: 0 });
  assert.ok(Array.isArray(body.history), 'voxd on A still answers the status itself');
  const doc = await vox(['doctor'], { env: bEnv, timeoutMs: 60_000 });
  assert.match(
    doc.stdout,
    /ok\s+remote link: connected to voxd on A as B through \S+remote\.sock \(keeper pid \d+\); the spool is empty/,
  );
  assert.match(doc.stdout, /daemon: reachable at \S+remote\.sock \(from remote\.json\), voxd on A/);
  // A healthy link is a healthy doctor: the token is the link's, and sound plays on A, so no local audio advice.
  assert.equal(doc.code, 0, doc.stdout);
  assert.match(
    doc.stdout,
    /^ok\s+token: A's token, in \S+remote\.json \(mode 600\), accepted by voxd on A through the link$/m,
  );
  assert.doesNotMatch(doc.stdout, /^\S+\s+(audio|audio-io|audio device|recorder|transcriber|service|engine espeak)\b/m);
  assert.doesNotMatch(doc.stdout, /vox daemon restart/);
});

test('vox status --watch on B follows the events of voxd on A through the link', { skip }, async () => {
  const watch = spawn(process.execPath, [VOX, 'status', '--watch'], { env: bEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  watch.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  watch.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((r) => watch.once('exit', r));
  try {
    // The stream is open once a say shows up in it; say again until it does (the first may precede the stream).
    await waitFor(
      async () => {
        await vox(['say', 'watched from host bee'], { env: bEnv });
        return / (queued|started|finished) \S+ \S+ B\//.test(out) || undefined;
      },
      20_000,
      `an event of B's speech in the watch (${out})`,
    );
  } finally {
    watch.kill('SIGINT');
    await exited;
  }
  await a.idle();
});

test(
  'the tunnel killed mid-sentence and restored: nothing lost, nothing repeated (history and WAVs on A)',
  { skip },
  async () => {
    const wavs = a.wavs().length;
    const long =
      'this is a long sentence from host bee that is still being spoken on host A when its tunnel is killed, and it goes on for a while';
    const r0 = await vox(['say', long], { env: bEnv });
    assert.equal(r0.code, 0, r0.stderr);
    await waitFor(
      async () => (await a.api('GET', '/v1/status')).body.playing?.text === long || undefined,
      20_000,
      'A speaking the long sentence',
    );
    process.kill(keeper.tunnels().at(-1)!, 'SIGKILL');
    const during = [
      'said while the tunnel was dead one',
      'said while the tunnel was dead two',
      'said while the tunnel was dead three',
    ];
    for (const t of during) {
      const r = await vox(['say', t], { env: bEnv, timeoutMs: 10_000 });
      assert.equal(r.code, 0, r.stderr);
    }
    await waitFor(() => keeper.tunnels().length === 2 || undefined, 20_000, `the link again (${keeper.log()})`);
    // In flight: the request sits unread in a stopped ssh, which is then killed.
    const tunnel = keeper.tunnels().at(-1)!;
    process.kill(tunnel, 'SIGSTOP');
    const inFlight = 'the request in flight when its tunnel died';
    const pending = vox(['say', inFlight], { env: bEnv, timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    process.kill(tunnel, 'SIGKILL');
    const r4 = await pending;
    assert.equal(r4.code, 0, r4.stderr);
    await waitFor(() => keeper.tunnels().length === 3 || undefined, 20_000, `the link a third time (${keeper.log()})`);
    await spokenOnce([long, ...during, inFlight], wavs);
    await waitFor(
      () => !existsSync(spoolFile()) || statSync(spoolFile()).size === 0 || undefined,
      10_000,
      'the spool drained',
    );
  },
);

test(
  'a stalled tunnel (ssh stopped) never holds vox hook past its deadline; its speech is spooled, then spoken once',
  { skip },
  async () => {
    const wavs = a.wavs().length;
    const payload = readFileSync(join(FIXTURES, 'hooks', 'notification-permission.json'), 'utf8');
    const dry = JSON.parse((await vox(['hook', 'Notification', '--dry-run'], { env: bEnv, input: payload })).stdout);
    const before = keeper.tunnels().length;
    const tunnel = keeper.tunnels().at(-1)!;
    process.kill(tunnel, 'SIGSTOP');
    const t = Date.now();
    // The hook's own deadline is 2.5 s (HOOK_DEADLINE_MS); this bound only stops a hang from hanging the test.
    const r = await vox(['hook', 'Notification'], { env: bEnv, input: payload, timeoutMs: 15_000 });
    const took = Date.now() - t;
    console.log(`# vox hook against a stopped tunnel: exit ${r.code} after ${took} ms (process start included)`);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(took < 10_000, `the hook returned (${took} ms), it did not wait for the tunnel`);
    const spooled = readFileSync(spoolFile(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      spooled.some((e) => e.body.text === dry.body.text),
      `the hook's speech is in the spool: ${JSON.stringify(spooled)}`,
    );
    // The keeper sees the tunnel stall, kills that ssh and reconnects, then sends the spool.
    await waitFor(
      () => keeper.tunnels().length === before + 1 || undefined,
      20_000,
      `the keeper restarts the stalled tunnel (${keeper.log()})`,
    );
    assert.match(keeper.log(), /does not answer .*restarting it/);
    await spokenOnce([dry.body.text], wavs);
  },
);

test(
  'a flood from B is bounded by voxd on A: each request is accepted, refused with a code or cut; each vox say in it is played once or reported refused',
  { skip },
  async () => {
    const link = JSON.parse(readFileSync(join(bEnv.VOX_HOME!, 'remote.json'), 'utf8'));
    const counters = async () => (await a.api('GET', '/v1/status')).body.counters;
    const c0 = await counters();
    const N = 300;
    const send = (i: number) =>
      new Promise<{ status: number; code?: string }>((resolve) => {
        const body = JSON.stringify({ text: `flood ${i}`, session: 'B/flood', requestId: `flood-${process.pid}-${i}` });
        const req = httpRequest(
          {
            socketPath: link.socket,
            method: 'POST',
            path: '/v1/speak',
            agent: false,
            headers: {
              authorization: `Bearer ${link.token}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (d: string) => (text += d));
            res.on('end', () => {
              let code: string | undefined;
              try {
                code = JSON.parse(text).code;
              } catch {
                code = undefined;
              }
              resolve({ status: res.statusCode ?? 0, ...(code ? { code } : {}) });
            });
          },
        );
        req.on('error', (e) => resolve({ status: 0, code: `cut: ${e.message}` }));
        req.end(body);
      });
    // The real client in the same flood: what it says must come out once, whatever the flood met.
    const mine = ['flooded one', 'flooded two', 'flooded three', 'flooded four', 'flooded five', 'flooded six'];
    const [answers, says] = await Promise.all([
      Promise.all(Array.from({ length: N }, (_, i) => send(i))),
      Promise.all(mine.map((t) => vox(['say', t], { env: bEnv, timeoutMs: 20_000 }))),
    ]);
    const accepted = answers.filter((x) => x.status === 202 || x.status === 200).length;
    const byCode: Record<string, number> = {};
    for (const x of answers)
      if (x.status !== 202 && x.status !== 200)
        byCode[x.code ?? `HTTP ${x.status}`] = (byCode[x.code ?? `HTTP ${x.status}`] ?? 0) + 1;
    console.log(
      `# flood of ${N} through the tunnel (voxd's cap 128 connections): ${accepted} accepted, others ${JSON.stringify(byCode)}; vox say: ${says.map((r) => r.stdout.trim() || r.code).join(', ')}`,
    );
    for (const x of answers) {
      // voxd's answer (accepted, or one of its codes), or a connection it cut at its cap: the sender knows either way.
      assert.ok(
        x.status === 202 ||
          x.status === 200 ||
          (x.status >= 400 && /^VOX_ERR_/.test(x.code ?? '')) ||
          (x.status === 0 && /^cut: /.test(x.code ?? '')),
        `an answer: ${JSON.stringify(x)}`,
      );
    }
    // vox say is accepted (or spooled when its connection was cut), or says voxd's refusal: exit 3 and the code.
    const said = mine.filter((_, i) => says[i]!.code === 0);
    mine.forEach((t, i) => {
      if (says[i]!.code !== 0)
        assert.match(says[i]!.stderr, /VOX_ERR_TOO_MANY_CONNECTIONS|VOX_ERR_QUEUE_FULL/, `"${t}": ${says[i]!.stderr}`);
    });
    await a.api('POST', '/v1/stop', { scope: 'session', session: 'B/flood' });
    // What vox say had accepted or spooled is played once each.
    await spokenOnce(said);
    const h = await history();
    flood = {
      refusedButSpoken: mine.filter((x) => !said.includes(x) && h.some((e) => e.text === x)),
      acceptedDelta: (await counters()).accepted - c0.accepted,
      answeredAccepted: accepted + said.length,
    };
    // Too long for voxd: a clear error on B, through the tunnel.
    const big = await vox(['say', 'x'.repeat(20_001)], { env: bEnv });
    assert.notEqual(big.code, 0);
    assert.match(big.stderr, /VOX_ERR_TEXT_TOO_LONG/);
  },
);

// A connection over voxd's cap is answered 503 (connections.ts), and what it sends anyway is never
// handled (server.ts): a caller told VOX_ERR_TOO_MANY_CONNECTIONS is not spoken behind its back.
test(
  'a request voxd refused at its connection cap is not spoken, and voxd accepted only what it answered as accepted',
  { skip },
  () => {
    assert.ok(flood, 'the flood ran');
    assert.deepEqual(flood.refusedButSpoken, [], 'told refused (exit 3), yet spoken');
    assert.equal(flood.acceptedDelta, flood.answeredAccepted, "accepted by voxd behind the sender's back");
  },
);

test(
  'the spool is capped: past it vox say fails and vox hook says so, and status and doctor show the link down',
  { skip },
  async () => {
    await keeper.stop();
    // Filled to just under the cap (1 MB) with what B's clients spool.
    const line = `${JSON.stringify({ body: { text: 'filler', session: 'B/x', requestId: 'filler' }, at: Date.now() })}\n`;
    writeFileSync(spoolFile(), line.repeat(Math.floor((1024 * 1024 - 100) / line.length)), { mode: 0o600 });
    const entries = Math.floor((1024 * 1024 - 100) / line.length);
    const r = await vox(['say', 'one too many'], { env: bEnv, timeoutMs: 10_000 });
    assert.notEqual(r.code, 0, 'vox say fails');
    assert.match(r.stderr, /VOX_ERR_CLIENT_REMOTE_SPOOL_FULL/);
    const payload = readFileSync(join(FIXTURES, 'hooks', 'notification-permission.json'), 'utf8');
    const h = await vox(['hook', 'Notification'], { env: bEnv, input: payload, timeoutMs: 10_000 });
    assert.equal(h.code, 0, 'a hook still exits 0');
    assert.match(h.stderr, /spool .*is full/, 'and says what it could not keep');
    assert.equal(
      readFileSync(spoolFile(), 'utf8').split('\n').filter(Boolean).length,
      entries,
      'nothing past the cap was written',
    );
    const st = await vox(['status'], { env: bEnv, timeoutMs: 10_000 });
    assert.notEqual(st.code, 0);
    assert.match(
      st.stdout,
      new RegExp(
        `remote: linked to A as B, DOWN \\(keeper pid ${keeper.proc.pid} NOT RUNNING: run "vox remote connect A"\\), spool ${entries} waiting`,
      ),
    );
    assert.match(st.stderr, /VOX_ERR_CLIENT_REMOTE_DOWN/);
    const doc = await vox(['doctor'], { env: bEnv, timeoutMs: 60_000 });
    assert.notEqual(doc.code, 0);
    assert.match(
      doc.stdout,
      new RegExp(
        `fail\\s+remote link: linked to voxd on A as B .*its keeper \\(pid ${keeper.proc.pid}\\) is not running.*${entries} request`,
      ),
    );
    rmSync(spoolFile());
    // A FIFO where the spool goes (another program planted it): the hook neither hangs nor writes there.
    spawnSync('mkfifo', [spoolFile()]);
    const t = Date.now();
    const f = await vox(['hook', 'Notification'], { env: bEnv, input: payload, timeoutMs: 10_000 });
    assert.equal(f.code, 0);
    assert.match(f.stderr, /spool .*cannot be written \(ENXIO\)/, f.stderr);
    assert.ok(Date.now() - t < 8000, 'the hook did not block on the FIFO');
    const fs = await vox(['say', 'not into a fifo'], { env: bEnv, timeoutMs: 10_000 });
    assert.notEqual(fs.code, 0);
    assert.match(fs.stderr, /VOX_ERR_CLIENT_REMOTE_DOWN/);
    rmSync(spoolFile());
  },
);

test('a second vox remote connect is refused, and the first keeps the link', { skip }, async () => {
  keeper = connect();
  await waitFor(() => keeper.tunnels().length === 1 || undefined, 20_000, `the link (${keeper.log()})`);
  const args = ['remote', 'connect', 'A', '--as', 'B', '--vox', voxOnA(), '--ssh-config', ssh.sshConfig];
  const second = await vox(args, { env: bEnv, timeoutMs: 20_000 });
  assert.equal(second.code, 3, second.stderr);
  assert.match(
    second.stderr,
    new RegExp(
      `VOX_ERR_CLIENT_REMOTE_LINKED: .*already linked to A by "vox remote connect" \\(pid ${keeper.proc.pid}\\)`,
    ),
  );
  assert.equal(JSON.parse(readFileSync(join(bEnv.VOX_HOME!, 'remote.json'), 'utf8')).pid, keeper.proc.pid);
  assert.equal(keeper.proc.exitCode, null, 'the first keeper runs on');
  assert.doesNotMatch(keeper.log(), /disconnected|replaced/);
});

test('vox remote disconnect ends the keeper, the link and its socket', { skip }, async () => {
  const sock = join(bEnv.VOX_HOME!, 'remote.sock');
  assert.ok(existsSync(sock), 'the forward listens on remote.sock');
  const r = await vox(['remote', 'disconnect'], { env: bEnv });
  assert.equal(r.code, 0, r.stderr);
  await waitFor(() => keeper.proc.exitCode !== null || undefined, 10_000, `the keeper to end (${keeper.log()})`);
  assert.match(keeper.log(), /disconnected from A/);
  assert.ok(!existsSync(join(bEnv.VOX_HOME!, 'remote.json')));
  assert.ok(!existsSync(sock), 'remote.sock is removed');
});

test('a keeper whose link another keeper took over says it was replaced, not disconnected', { skip }, async () => {
  keeper = connect();
  await waitFor(() => keeper.tunnels().length === 1 || undefined, 20_000, `the link (${keeper.log()})`);
  // What a second connect that raced the refusal writes: the link, with its own (live) pid.
  const file = join(bEnv.VOX_HOME!, 'remote.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), pid: process.pid }), { mode: 0o600 });
  await waitFor(() => keeper.proc.exitCode !== null || undefined, 10_000, `the keeper to end (${keeper.log()})`);
  assert.match(
    keeper.log(),
    new RegExp(`replaced: another "vox remote connect" \\(pid ${process.pid}\\) holds the link`),
  );
  assert.doesNotMatch(keeper.log(), /disconnected/);
  rmSync(file);
});
