/**
 * One announcement per permission ask through `vox hook`, each event its own
 * process (the command hooks of Codex, Gemini, Copilot, opencode, and of
 * Claude Code before mcp_tool hooks): a PermissionRequest, then the
 * `permission_prompt` Notification that Claude Code 2.1.332 sends for the
 * same ask (its message names no tool), are heard once. The asks announced
 * are kept in a small state file under VOX_HOME (hooks/permission-asks.ts),
 * which a hostile file there must never turn into a hang or a crash.
 * Real voxd, file sink, the real `vox` binary.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryEntry } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, writeConfig, type Daemon } from '../helpers/daemon.js';

/** Where the asks announced are kept (hooks/permission-asks.ts). */
const STATE = 'permission-asks.json';

describe('vox hook: one announcement per permission ask across processes', () => {
  let d: Daemon;
  let root: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-hook-once-');
    writeConfig(join(root, 'api'), 'notify: normal');
    mkdirSync(join(root, 'api', 'src'), { recursive: true });
    env = { ...d.env, VOX_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(root);
  });

  const request = (session: string) =>
    JSON.stringify({
      session_id: session,
      cwd: join(root, 'api', 'src'),
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'npm run migrate' },
    });
  // Claude Code 2.1.332's words: no tool named, so no duplicate key at voxd can tie it to the request.
  const prompt = (session: string) =>
    JSON.stringify({
      session_id: session,
      cwd: join(root, 'api', 'src'),
      hook_event_name: 'Notification',
      message: 'Claude needs your permission',
      notification_type: 'permission_prompt',
    });

  /** Runs `vox hook EVENT` as its own process; the entries it added to voxd's history, once voxd is idle. */
  async function hook(event: string, input: string): Promise<HistoryEntry[]> {
    await d.idle();
    const seen = new Set(((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).map((h) => h.id));
    const r = await vox(['hook', event], { env, input, timeoutMs: 20_000 });
    assert.equal(r.code, 0, `vox hook ${event} exits 0: ${r.stderr}`);
    assert.equal(r.stdout, '');
    await d.idle();
    return ((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).filter((h) => !seen.has(h.id));
  }
  /** What was heard: history entries that were not dropped as duplicates. */
  const heard = (added: HistoryEntry[]) => added.filter((h) => h.outcome !== 'deduped').map((h) => h.text);

  test('PermissionRequest then its permission_prompt Notification, two processes: announced once', async () => {
    const wavs = d.wavs().length;
    const session = 'a0000001-0000-4000-8000-000000000001';
    assert.deepEqual(heard(await hook('PermissionRequest', request(session))), [
      'api needs your permission to use Bash',
    ]);
    assert.deepEqual(heard(await hook('Notification', prompt(session))), [], 'the same ask is not announced again');
    assert.equal(d.wavs().length, wavs + 1, 'the file sink played one announcement');
  });

  test("another session's permission_prompt is still announced", async () => {
    await hook('PermissionRequest', request('b0000002-0000-4000-8000-000000000002'));
    assert.deepEqual(heard(await hook('Notification', prompt('c0000003-0000-4000-8000-000000000003'))), [
      'api needs your permission',
    ]);
  });

  test('a hostile state file (huge, a FIFO, a symlink, garbage, a directory) neither hangs nor crashes a hook', async () => {
    const path = join(d.home, STATE);
    const decoy = join(root, 'decoy.json');
    const hostile: Record<string, () => void> = {
      huge: () => {
        writeFileSync(path, '');
        truncateSync(path, 64 * 1024 * 1024);
      },
      fifo: () => execFileSync('mkfifo', [path]),
      // A symlink is not followed, even to a file that would silence the ask.
      symlink: () => {
        writeFileSync(decoy, JSON.stringify({ version: 1, asks: {} }));
        symlinkSync(decoy, path);
      },
      garbage: () => writeFileSync(path, '{"version": 1, "asks": [\0\0 not json'),
      directory: () => mkdirSync(path),
    };
    let n = 10;
    for (const [kind, make] of Object.entries(hostile)) {
      rmSync(path, { recursive: true, force: true });
      make();
      // The label keeps a session id's first six characters: each case its own session.
      const session = `d${n++}0000-0000-4000-8000-000000000000`;
      // With nothing readable remembered, the Notification is heard: never silenced by a bad file.
      assert.deepEqual(heard(await hook('Notification', prompt(session))), ['api needs your permission'], kind);
      assert.deepEqual(
        heard(await hook('PermissionRequest', request(session))),
        ['api needs your permission to use Bash'],
        kind,
      );
    }
    rmSync(path, { recursive: true, force: true });
  });
});
