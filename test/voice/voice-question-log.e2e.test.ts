/**
 * The decision log under a voice question, through the real `vox hook
 * PermissionRequest`: the real voxd (file sink), the recorder shim, the
 * stand-in transcriber answering "allow". With a regular log the decision is
 * printed and logged; with a FIFO in the log's place (no reader: a blocking
 * open would wait for good, and Claude Code's whole hook with it) the hook
 * returns with no decision, saying why. A hook still running after 60 s is
 * killed, and fails.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, removeDir, startDaemon, tempDir, vox, type Daemon } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { needTool } from '../helpers/tools.js';

const EXIT_LIMIT_MS = 60_000;

describe('the decision log of a voice question', { skip: needTool('mkfifo') }, () => {
  let d: Daemon;
  let stt: TranscriptionApi;
  let base: string;

  before(async () => {
    stt = await startTranscriptionApi();
    stt.mode = { kind: 'ok', text: 'allow' };
    base = tempDir('vox-voice-log-');
    const control = join(base, 'mic.json');
    writeFileSync(control, '{}');
    d = await startDaemon({
      realtime: false,
      env: {
        VOXD_RECORDER: join(FIXTURES, 'listen', 'arecord'),
        VOX_TEST_MIC_CONTROL: control,
        VOXD_TRANSCRIBER_URL: stt.url,
        VOXD_TRANSCRIBER_TIMEOUT_MS: '5000',
      },
    });
  });
  after(async () => {
    await d?.stop();
    await stt?.close();
    if (d) removeDir(d.home);
    if (base) removeDir(base);
  });

  /** `vox hook PermissionRequest` for `npm test` in a project that approves by voice, in this VOX_HOME. */
  async function ask(home: string, id: string) {
    const cwd = join(base, 'api');
    mkdirSync(join(cwd, '.vox'), { recursive: true });
    writeFileSync(join(cwd, '.vox', 'config.md'), '---\napproveByVoice: true\n---\n');
    const payload = {
      session_id: `${id}-0000-4000-8000-000000000001`,
      cwd,
      permission_mode: 'default',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'npm test', description: 'a command' },
      tool_use_id: `toolu_${id}`,
    };
    const env = { ...d.env, VOX_HOME: home, VOXD_PORT: String(d.port), VOX_NO_AUTOSTART: '1' };
    const r = await vox(['hook', 'PermissionRequest'], {
      env,
      cwd,
      input: JSON.stringify(payload),
      timeoutMs: EXIT_LIMIT_MS,
    });
    assert.equal(r.code, 0, `the hook exited (${String(r.code)}) within ${EXIT_LIMIT_MS} ms: ${r.stderr}`);
    return r;
  }

  /** A VOX_HOME of its own, served by the test's voxd (its token). */
  function home(name: string): string {
    const h = join(base, name);
    mkdirSync(join(h, 'logs'), { recursive: true, mode: 0o700 });
    writeFileSync(join(h, 'token'), readFileSync(join(d.home, 'token')), { mode: 0o600 });
    return h;
  }

  test('a regular log: the spoken answer is the decision, and its line is written', async () => {
    const h = home('regular');
    const r = await ask(h, 'aaaaaaaa');
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.decision.behavior, 'allow', r.stderr);
    const line = JSON.parse(readFileSync(join(h, 'logs', 'voice-decisions.jsonl'), 'utf8').trim());
    assert.equal(line.requestId, 'toolu_aaaaaaaa');
    assert.equal(line.answer, 'allow');
  });

  test('a FIFO in the log’s place: the hook returns with no decision, saying the log cannot be written', async () => {
    const h = home('fifo');
    execFileSync('mkfifo', ['-m', '600', join(h, 'logs', 'voice-decisions.jsonl')]);
    const r = await ask(h, 'bbbbbbbb');
    assert.equal(r.stdout, '', 'no decision printed');
    assert.match(r.stderr, /no voice decision: .*the decision log cannot be written \(.*is a FIFO/);
  });
});
