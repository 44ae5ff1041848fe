/**
 * The channel permission relay of `vox mcp`, driven by the MCP SDK's Client
 * as Claude Code drives it (`notifications/claude/channel/permission_request`
 * in, `notifications/claude/channel/permission` out), against the real voxd
 * recording the recorder shim and the stand-in transcriber on 127.0.0.1
 * saying what the user "said". test/claude/channel.e2e.test.ts runs the same relay in
 * the real Claude Code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { FIXTURES, removeDir, startDaemon, tempDir, VOX, waitFor, type Daemon } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { writeSilentWav } from '../helpers/wav.js';

interface Answer {
  request_id: string;
  behavior: string;
}
interface Logged {
  requestId: string;
  transcript: string;
  behavior: string | null;
  reason: string;
}
interface Session {
  client: Client;
  answers: Answer[];
  stderr: () => string;
}

describe('the channel permission relay (SDK Client, real vox mcp and voxd)', () => {
  let d: Daemon;
  let stt: TranscriptionApi;
  let home: string;
  let silence: string;
  const open: Session[] = [];
  const mic = (settings: { wav?: string } = {}) => writeFileSync(join(home, 'mic.json'), JSON.stringify(settings));
  const decisions = (): Logged[] => {
    const file = join(d.home, 'logs', 'voice-decisions.jsonl');
    return existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Logged)
      : [];
  };
  const history = async () =>
    (await d.api('GET', '/v1/status')).body.history as Array<{ text: string; session?: string }>;

  async function connect(name: string, frontMatter: string): Promise<Session> {
    const dir = join(home, name);
    mkdirSync(join(dir, '.vox'), { recursive: true });
    writeFileSync(join(dir, '.vox', 'config.md'), `---\n${frontMatter}\n---\n`);
    const client = new Client({ name: 'claude-code', version: '2.1.332' });
    const s: Session = { client, answers: [], stderr: () => '' };
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/claude/channel/permission') s.answers.push(n.params as unknown as Answer);
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [VOX, 'mcp'],
      cwd: dir,
      env: { ...(d.env as Record<string, string>), VOX_NO_AUTOSTART: '1' },
      stderr: 'pipe',
    });
    let err = '';
    transport.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
    s.stderr = () => err;
    await client.connect(transport);
    open.push(s);
    return s;
  }
  const request = (s: Session, params: Record<string, unknown>) =>
    s.client.notification({ method: 'notifications/claude/channel/permission_request', params });
  const bash = (id: string, command: string) => ({
    request_id: id,
    tool_name: 'Bash',
    description: 'Run a command',
    input_preview: JSON.stringify({ command }),
  });
  /** The relay's outcome line for `id` on the session's stderr. */
  const outcome = (s: Session, id: string) =>
    waitFor(
      () => new RegExp(`vox mcp: channel permission ${id}: (.*)`).exec(s.stderr())?.[1],
      40_000,
      `the relay's outcome for ${id}`,
    );

  before(async () => {
    stt = await startTranscriptionApi();
    home = tempDir('vox-channel-permission-');
    silence = writeSilentWav(join(home, 'silence.wav'), 8000);
    mic();
    d = await startDaemon({
      realtime: false,
      env: {
        VOXD_RECORDER: join(FIXTURES, 'listen', 'arecord'),
        VOX_TEST_MIC_CONTROL: join(home, 'mic.json'),
        VOX_TEST_MIC_PIDFILE: join(home, 'mic.pid'),
        VOXD_TRANSCRIBER_URL: stt.url,
        VOXD_TRANSCRIBER_TIMEOUT_MS: '3000',
      },
    });
  });
  after(async () => {
    for (const s of open) await s.client.close();
    await stt?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('vox mcp declares claude/channel/permission beside claude/channel', async () => {
    const s = await connect('caps', 'notify: normal');
    assert.deepEqual(s.client.getServerCapabilities()?.experimental, {
      'claude/channel': {},
      'claude/channel/permission': {},
    });
  });

  test('without approveByVoice: the request is announced, nothing is listened to, and nothing answers it', async () => {
    const s = await connect('web', 'notify: normal');
    const heard = stt.received.length;
    await request(s, bash('abcde', 'npm test'));
    assert.equal(await outcome(s, 'abcde'), 'no answer (announced)');
    const said = (await history()).filter((h) => h.text.startsWith('web wants to'));
    assert.deepEqual(
      said.map((h) => h.text),
      ['web wants to run npm test.'],
    );
    assert.match(said[0]!.session ?? '', /^web#/);
    assert.deepEqual(s.answers, []);
    assert.equal(stt.received.length, heard, 'nothing was recorded or transcribed');
  });

  test('approveByVoice: "Allow." answers allow, "Deny." answers deny, each with its own request id', async () => {
    const s = await connect('api', 'approveByVoice: true');
    mic();
    stt.mode = { kind: 'ok', text: 'Allow.' };
    await request(s, bash('fghij', 'make build'));
    assert.equal(await outcome(s, 'fghij'), 'answered allow (answered by voice: allow)');
    stt.mode = { kind: 'ok', text: 'Deny.' };
    await request(s, bash('kmnop', 'rm -rf build'));
    assert.equal(await outcome(s, 'kmnop'), 'answered deny (answered by voice: deny)');
    await waitFor(() => (s.answers.length === 2 ? true : undefined), 5000, 'both answers');
    assert.deepEqual(s.answers, [
      { request_id: 'fghij', behavior: 'allow' },
      { request_id: 'kmnop', behavior: 'deny' },
    ]);
    // Asked with the question, then logged like the hook's decisions.
    const asked = (await history()).filter((h) => h.text.startsWith('api wants to')).map((h) => h.text);
    assert.deepEqual(asked.sort(), [
      'api wants to run make build. Allow or deny?',
      'api wants to run rm dash rf build. Allow or deny?',
    ]);
    assert.deepEqual(
      decisions()
        .filter((e) => ['fghij', 'kmnop'].includes(e.requestId))
        .map((e) => [e.requestId, e.transcript, e.behavior]),
      [
        ['fghij', 'Allow.', 'allow'],
        ['kmnop', 'Deny.', 'deny'],
      ],
    );
  });

  for (const [name, said, why] of [
    ['silence', undefined, /nothing heard/],
    ['a near miss', 'a low', /not an answer of the grammar/],
    ['"always" (the relay has no always)', 'Always allow.', /not an answer of the grammar/],
  ] as const) {
    test(`approveByVoice, ${name}: no answer, the dialog stays`, async () => {
      const s = await connect(`quiet-${open.length}`, 'approveByVoice: true');
      mic(said === undefined ? { wav: silence } : {});
      stt.mode = { kind: 'ok', text: said ?? '' };
      const id = `q${open.length}aaa`;
      await request(s, bash(id, 'npm publish'));
      // The same request again while it is asked: relayed once.
      await request(s, bash(id, 'npm publish'));
      assert.equal(await outcome(s, id), `no answer (request ${id} is being relayed already)`);
      await waitFor(
        () => ((s.stderr().match(new RegExp(`channel permission ${id}:`, 'g')) ?? []).length === 2 ? true : undefined),
        40_000,
        'the first request to end',
      );
      assert.match(s.stderr(), new RegExp(`channel permission ${id}: no answer \\((?!request ${id} is being)`));
      const [entry] = decisions().filter((e) => e.requestId === id);
      assert.ok(entry, 'the outcome was logged');
      assert.equal(entry.behavior, null);
      assert.match(entry.reason, why);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(s.answers, []);
    });
  }

  test('a request that is not one is ignored, with the reason on stderr', async () => {
    const s = await connect('bad', 'approveByVoice: true');
    await request(s, { tool_name: 'Bash' });
    await waitFor(
      () => (/a channel permission_request was ignored: request_id is not an id/.test(s.stderr()) ? true : undefined),
      10_000,
      'the reason',
    );
    await request(s, { request_id: 'x'.repeat(65), tool_name: 'Bash' });
    await waitFor(
      () => ((s.stderr().match(/permission_request was ignored/g) ?? []).length === 2 ? true : undefined),
      10_000,
      'the second reason',
    );
    await request(s, { request_id: 'rstuv', tool_name: '' });
    await waitFor(
      () => (/ignored: tool_name is missing/.test(s.stderr()) ? true : undefined),
      10_000,
      'the third reason',
    );
    assert.deepEqual(s.answers, []);
  });

  test("where the plugin's hooks serve the session, the relay stays quiet: the PermissionRequest hook asks", async () => {
    const s = await connect('hooked', 'approveByVoice: true');
    const r = await s.client.callTool({
      name: 'hook',
      arguments: { event: 'SessionStart', session_id: '11111111-aaaa-4bbb-8ccc-dddddddddddd', source: 'startup' },
    });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    const heard = stt.received.length;
    await request(s, bash('wxyza', 'npm test'));
    assert.equal(await outcome(s, 'wxyza'), "no answer (the plugin's PermissionRequest hook asks for this session)");
    assert.equal(stt.received.length, heard);
    assert.equal(
      (await history()).some((h) => h.text.startsWith('hooked wants to')),
      false,
    );
  });
});
