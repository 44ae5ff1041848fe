/**
 * Other agents' hooks, end to end: the Codex, Gemini CLI and Qwen Code payloads in
 * test/fixtures/hooks/{codex,gemini,qwen}-*.json go through the real
 * `vox hook --agent …` against the real voxd (file sink); what it said is
 * read back from voxd's history. Then `vox hooks install --agent gemini`
 * on a settings.json with the user's own content, and back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryEntry } from '../helpers/hook-expectations.js';
import { FIXTURES, removeDir, startDaemon, tempDir, vox, type Daemon, writeConfig } from '../helpers/daemon.js';

describe('vox hook --agent codex|gemini|qwen', () => {
  let d: Daemon;
  let root: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-agents-e2e-');
    writeConfig(join(root, 'shop'), 'notify: normal');
    writeConfig(join(root, 'api'), 'notify: continuous');
    env = { ...d.env, VOX_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(root);
  });

  function payload(file: string, project = 'shop', extra: Record<string, unknown> = {}): string {
    const p = JSON.parse(readFileSync(join(FIXTURES, 'hooks', file), 'utf8')) as Record<string, unknown>;
    return JSON.stringify({ ...p, cwd: join(root, project), ...extra });
  }

  async function run(agent: string, input: string): Promise<HistoryEntry[]> {
    await d.idle();
    const seen = new Set(((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).map((h) => h.id));
    const r = await vox(['hook', '--agent', agent], { env, input, timeoutMs: 20_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
    return ((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).filter((h) => !seen.has(h.id));
  }
  const said = (hs: HistoryEntry[]) => hs.map((h) => [h.text, h.priority, h.session]);

  test('Codex Stop speaks the first sentences of last_assistant_message at text priority, labelled by session_id', async () => {
    const hs = await run('codex', payload('codex-stop.json'));
    assert.deepEqual(said(hs), [['Done: the build is green. I updated two snapshots.', 'text', 'shop#0199a1']]);
  });

  test('Codex PermissionRequest is important and names the tool; the same request again is deduped', async () => {
    const first = await run('codex', payload('codex-permission-request.json'));
    assert.deepEqual(said(first), [['shop needs your permission to use Bash', 'important', 'shop#0199a1']]);
    const again = await run('codex', payload('codex-permission-request.json'));
    assert.deepEqual(
      again.map((h) => h.outcome),
      ['deduped'],
    );
  });

  test('Gemini AfterAgent is Stop: the summary of prompt_response', async () => {
    const hs = await run('gemini', payload('gemini-after-agent.json'));
    assert.deepEqual(said(hs), [['All 42 tests pass. I fixed the off-by-one in cart.ts.', 'text', 'shop#6f0c1a']]);
  });

  test('Gemini ToolPermission Notification is an important permission ask, deduped within its session', async () => {
    const first = await run(
      'gemini',
      payload('gemini-notification-tool-permission.json', 'shop', { session_id: 'aa11bb22-perm' }),
    );
    assert.deepEqual(said(first), [['shop needs your permission', 'important', 'shop#aa11bb']]);
    const again = await run(
      'gemini',
      payload('gemini-notification-tool-permission.json', 'shop', { session_id: 'aa11bb22-perm' }),
    );
    assert.deepEqual(
      again.map((h) => h.outcome),
      ['deduped'],
    );
  });

  test('Gemini PreCompress is PreCompact: silent in notify: normal, spoken in continuous', async () => {
    assert.deepEqual(await run('gemini', payload('gemini-pre-compress.json')), []);
    const hs = await run('gemini', payload('gemini-pre-compress.json', 'api'));
    assert.deepEqual(said(hs), [['api is compacting context', 'notification', 'api#6f0c1a']]);
  });

  test('Qwen Stop speaks last_assistant_message; PermissionRequest names the tool as its dialog does (Shell)', async () => {
    const hs = await run('qwen', payload('qwen-stop.json'));
    assert.deepEqual(said(hs), [['Made the file. Nothing else changed.', 'text', 'shop#06912c']]);
    const ask = await run('qwen', payload('qwen-permission-request.json'));
    assert.deepEqual(said(ask), [['shop needs your permission to use Shell', 'important', 'shop#06912c']]);
    const again = await run('qwen', payload('qwen-permission-request.json'));
    assert.deepEqual(
      again.map((h) => h.outcome),
      ['deduped'],
    );
  });

  test('an unknown --agent is reported and the hook still exits 0 silently', async () => {
    const r = await vox(['hook', '--agent', 'cursor'], { env, input: payload('codex-stop.json'), timeoutMs: 20_000 });
    assert.equal(r.code, 0);
    assert.match(r.stderr, /--agent/);
  });
});

describe('vox hooks install --agent gemini', () => {
  test('keeps the user settings, is idempotent, and uninstall gives back the same object', async () => {
    const home = tempDir('vox-agents-home-');
    try {
      const path = join(home, '.gemini', 'settings.json');
      mkdirSync(join(home, '.gemini'));
      const mine = {
        theme: 'GitHub',
        mcpServers: { github: { command: 'gh-mcp', args: [] } },
        hooks: {
          enabled: ['my-hook'],
          AfterAgent: [{ matcher: '*', hooks: [{ type: 'command', command: 'notify-send done' }] }],
        },
      };
      writeFileSync(path, `${JSON.stringify(mine, null, 4)}\n`);
      const env = { HOME: home, VOX_NO_AUTOSTART: '1' };
      const first = await vox(['hooks', 'install', '--agent', 'gemini', '--json'], { env });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(JSON.parse(first.stdout).changed, true);
      const s = JSON.parse(readFileSync(path, 'utf8'));
      assert.equal(s.theme, 'GitHub');
      assert.deepEqual(s.mcpServers.github, mine.mcpServers.github);
      assert.deepEqual(s.mcpServers.vox.args.at(-1), 'mcp');
      assert.deepEqual(s.hooks.enabled, ['my-hook']);
      assert.equal(s.hooks.AfterAgent.length, 2);
      assert.match(s.hooks.AfterAgent[1].hooks[0].command, / hook --agent gemini AfterAgent$/);
      for (const e of ['SessionStart', 'SessionEnd', 'Notification', 'PreCompress'])
        assert.equal(s.hooks[e].length, 1, e);
      assert.match(readFileSync(path, 'utf8'), /^ {4}"theme"/m, 'the file keeps its indent');
      const again = await vox(['hooks', 'install', '--agent', 'gemini', '--json'], { env });
      assert.equal(JSON.parse(again.stdout).changed, false);
      const gone = await vox(['hooks', 'uninstall', '--agent', 'gemini', '--json'], { env });
      assert.equal(JSON.parse(gone.stdout).changed, true);
      assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), mine);
      // A malformed file is never overwritten.
      writeFileSync(path, '{ "theme": ');
      const bad = await vox(['hooks', 'install', '--agent', 'gemini'], { env });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /not valid JSON/);
      assert.equal(readFileSync(path, 'utf8'), '{ "theme": ');
    } finally {
      removeDir(home);
    }
  });
});
