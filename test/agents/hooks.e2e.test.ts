/**
 * `vox hook`, end to end: every payload in test/fixtures/hooks goes through
 * the real `vox hook <hook_event_name>` binary against the real voxd (file
 * sink), and what it said (or didn't) is read back from voxd's history.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPECTED, type HistoryEntry } from '../helpers/hook-expectations.js';
import {
  FIXTURES as FIXTURES_ROOT,
  VOX,
  cleanEnv,
  removeDir,
  startDaemon,
  tempDir,
  vox,
  waitFor,
  type Daemon,
  writeConfig,
} from '../helpers/daemon.js';

const FIXTURES = join(FIXTURES_ROOT, 'hooks');
/** The fixtures' cwd values all live under this directory; the test maps it to a temp one. */
const FIXTURE_ROOT = '/home/dev';

describe('vox hook with every fixture payload', () => {
  let d: Daemon;
  let root: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-hooks-e2e-');
    writeConfig(join(root, 'api'), 'notify: continuous');
    writeConfig(join(root, 'shop'), 'notify: normal');
    writeConfig(join(root, 'quiet'), 'speak: false');
    writeConfig(join(root, 'off'), 'notify: off');
    writeConfig(join(root, 'broken'), 'notify: sometimes');
    // Never start a stray daemon from a test.
    env = { ...d.env, VOX_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(root);
  });

  /** The payload with its cwd moved under the temp root (created). */
  function payload(file: string, cwd?: string): string {
    const p = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown>;
    p.cwd = cwd ?? String(p.cwd).replace(FIXTURE_ROOT, root);
    mkdirSync(String(p.cwd), { recursive: true });
    return JSON.stringify(p);
  }

  async function history(): Promise<HistoryEntry[]> {
    const r = await d.api('GET', '/v1/status');
    return r.body.history as HistoryEntry[];
  }

  /** Run `vox hook EVENT` with the payload; returns the history entries it added. */
  async function runHook(
    event: string,
    input: string,
  ): Promise<{ code: number | null; stderr: string; stdout: string; added: HistoryEntry[] }> {
    await d.idle();
    const seen = new Set((await history()).map((h) => h.id));
    const r = await vox(['hook', event], { env, input, timeoutMs: 20_000 });
    // The request is answered before vox exits, so anything it sent is in the history now.
    const added = (await history()).filter((h) => !seen.has(h.id));
    return { ...r, added };
  }

  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && !/^(?:codex|gemini|qwen)-/.test(f))
    .sort(); // other agents': agents-hooks.e2e

  test('the fixture directory holds the payloads this test knows', () => {
    assert.deepEqual(files, Object.keys(EXPECTED).sort());
  });

  for (const file of files) {
    test(`${file}: ${EXPECTED[file] === 'silence' ? 'silence' : 'heard'}`, async () => {
      const input = payload(file);
      const event = String(JSON.parse(input).hook_event_name);
      const r = await runHook(event, input);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '', 'a hook writes nothing on stdout (SessionStart stdout goes to the model)');
      assert.equal(r.stderr, '', 'no problem reported');
      const want = EXPECTED[file]!;
      if (want === 'silence') {
        assert.deepEqual(r.added, []);
        return;
      }
      assert.equal(r.added.length, 1, JSON.stringify(r.added));
      const [h] = r.added;
      assert.deepEqual({ kind: h!.kind, text: h!.text, priority: h!.priority, session: h!.session }, want);
      // Chimes of one signal within 5 s are one chime: SubagentStop and SessionEnd may fold.
      assert.ok(['queued', 'playing', 'played', 'deduped'].includes(h!.outcome), `outcome ${h!.outcome}`);
    });
  }

  test('PermissionRequest speaks at once; the permission_prompt Notification for the same request is silent', async () => {
    const session = { session_id: 'ab12cd34-0000-4000-8000-00000000000f' };
    const request = JSON.stringify({ ...JSON.parse(payload('permission-request.json')), ...session });
    const prompt = JSON.stringify({ ...JSON.parse(payload('notification-permission.json')), ...session });
    const first = await runHook('PermissionRequest', request);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, '', 'no decision: the hook stays neutral');
    assert.deepEqual(
      first.added.map((h) => [h.text, h.priority, h.session]),
      [['api needs your permission to use Bash', 'important', 'api#ab12cd']],
    );
    assert.notEqual(first.added[0]!.outcome, 'deduped');
    // The asks announced are shared between hook processes (hooks/permission-asks.ts): nothing is sent.
    const later = await runHook('Notification', prompt);
    assert.equal(later.code, 0, later.stderr);
    assert.deepEqual(later.added, []);
    // Another tool in the same session is a new request, announced.
    const other = await runHook(
      'PermissionRequest',
      JSON.stringify({ ...JSON.parse(request), tool_name: 'WebFetch', tool_input: { url: 'https://example.com' } }),
    );
    assert.deepEqual(
      other.added.map((h) => [h.text, h.outcome === 'deduped']),
      [['api needs your permission to use WebFetch', false]],
    );
  });

  test('continuous mode: fork, clear and compact sources each say the right thing or nothing', async () => {
    const said: Record<string, string[]> = {};
    for (const source of ['fork', 'clear', 'compact', 'resume']) {
      const input = JSON.stringify({
        ...JSON.parse(payload('session-start-fork.json')),
        source,
        session_id: `5ource${source}`,
      });
      const r = await runHook('SessionStart', input);
      assert.equal(r.code, 0, r.stderr);
      said[source] = r.added.map((h) => h.text);
    }
    assert.deepEqual(said, { fork: ['api session forked'], clear: [], compact: [], resume: ['api session resumed'] });
  });

  test('a muted project (speak: false) hears the done chime for Stop, at text priority', async () => {
    const r = await runHook('Stop', payload('stop.json', join(root, 'quiet')));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.added.length, 1);
    assert.equal(r.added[0]!.kind, 'chime');
    assert.equal(r.added[0]!.text, '(done chime)');
    assert.equal(r.added[0]!.priority, 'text');
  });

  test('a muted project hears the prompt chime for a permission prompt, at important priority', async () => {
    const r = await runHook('Notification', payload('notification-permission.json', join(root, 'quiet', 'src')));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.added.map((h) => [h.kind, h.text, h.priority]),
      [['chime', '(prompt chime)', 'important']],
    );
  });

  test('notify: off silences even a permission prompt', async () => {
    const r = await runHook('Notification', payload('notification-permission.json', join(root, 'off')));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.added, []);
  });

  test('claude -p (CLAUDE_CODE_ENTRYPOINT=sdk-cli): permission and input prompts are silent unless unattendedPrompts: true', async () => {
    writeConfig(join(root, 'ci-loud'), 'unattendedPrompts: true');
    const headless = { ...env, CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' };
    const run = async (file: string, cwd: string) => {
      await d.idle();
      const seen = new Set((await history()).map((h) => h.id));
      const input = payload(file, cwd);
      const r = await vox(['hook', String(JSON.parse(input).hook_event_name)], {
        env: headless,
        input,
        timeoutMs: 20_000,
      });
      assert.equal(r.code, 0, r.stderr);
      return (await history()).filter((h) => !seen.has(h.id)).map((h) => h.text);
    };
    for (const file of ['permission-request.json', 'notification-permission.json', 'notification-elicitation.json']) {
      assert.deepEqual(await run(file, join(root, 'shop')), [], file);
    }
    assert.deepEqual(await run('permission-request.json', join(root, 'ci-loud')), [
      'ci-loud needs your permission to use Bash',
    ]);
    assert.equal((await run('stop.json', join(root, 'shop'))).length, 1, 'the Stop summary is still heard');
  });

  test('normal mode ignores SubagentStop, SessionStart and SessionEnd', async () => {
    for (const file of ['subagent-stop.json', 'session-start.json', 'session-end.json']) {
      const input = payload(file, join(root, 'shop'));
      const r = await runHook(String(JSON.parse(input).hook_event_name), input);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.added, [], file);
    }
  });

  test('an invalid config: one stderr line, nothing said, exit 0', async () => {
    const r = await runHook('Notification', payload('notification-permission.json', join(root, 'broken')));
    assert.equal(r.code, 0);
    assert.deepEqual(r.added, []);
    assert.match(r.stderr, /^vox hook: .*config\.md.*notify/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  test('garbage on stdin, an unknown event, no event at all: exit 0', async () => {
    for (const [args, input] of [
      [['hook', 'Notification'], '{"not json'],
      [['hook', 'PreToolUse'], payload('stop.json')],
      [['hook'], ''],
    ] as const) {
      const r = await vox([...args], { env, input, timeoutMs: 20_000 });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  test('voxd unreachable: one stderr line, exit 0', async () => {
    const home = tempDir('vox-hooks-nohome-');
    try {
      const r = await vox(['hook', 'Notification'], {
        env: cleanEnv(home, { VOX_NO_AUTOSTART: '1' }),
        input: payload('notification-permission.json'),
      });
      assert.equal(r.code, 0);
      assert.match(r.stderr, /^vox hook: .*voxd/);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    } finally {
      removeDir(home);
    }
  });

  test('a payload with no newline and no EOF: vox hook returns while stdin is still open', async () => {
    await d.idle();
    const seen = new Set((await history()).map((h) => h.id));
    const child = spawn(process.execPath, [VOX, 'hook', 'Notification'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin!.on('error', () => {});
    // No trailing newline, and stdin stays open until the process has exited (or 5 s).
    // A session of its own: the fixture's announced its PermissionRequest a moment ago (one announcement per ask).
    child.stdin!.write(
      JSON.stringify({ ...JSON.parse(payload('notification-permission.json')), session_id: 'e0f1a2b3-stdin' }),
    );
    let stdinOpen = true;
    const closer = setTimeout(() => {
      stdinOpen = false;
      child.stdin!.end();
    }, 5000);
    const code = await exited;
    const openAtExit = stdinOpen;
    clearTimeout(closer);
    child.stdin!.destroy();
    assert.equal(code, 0, stderr);
    assert.ok(openAtExit, 'vox hook exited only after stdin was closed');
    const added = await waitFor(
      async () => {
        const h = (await history()).filter((e) => !seen.has(e.id));
        return h.length ? h : undefined;
      },
      10_000,
      'the speech in the history',
    );
    assert.equal(added[0]!.text, 'api needs your permission to use Bash');
    assert.equal(added[0]!.priority, 'important');
  });
});
