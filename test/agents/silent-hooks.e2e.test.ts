/**
 * A hook that says nothing starts nothing, in the real CLIs (issue 34): a
 * `node` first on PATH logs every start, vox is installed with `--portable`
 * (`vox hook …` found on PATH, whose `#!/usr/bin/env node` is that node), and
 * the project says `notify: normal`. Codex (`codex exec`) and Gemini
 * (`gemini -p`) run offline against their stand-ins; the model calls one tool,
 * so Codex's PreToolUse and Gemini's AfterTool fire (a user hook of the test's
 * own, in plain sh, notes each), and so do SessionStart and SessionEnd, which
 * say nothing in notify: normal. The log then holds one hook start: the
 * spoken reply's (Stop, AfterAgent), which voxd heard. vox installs no entry
 * for the tool events, and its gated SessionStart and SessionEnd start no node.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyInOrder } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, VOX, writeConfig, type Daemon } from '../helpers/daemon.js';
import { CODEX, codexSkip, geminiSkip, runCli, runGemini } from '../helpers/agent-clis.js';
import { callOutputs, startResponsesApi } from '../helpers/responses-api.js';
import { functionResponses, startGeminiApi } from '../helpers/gemini-api.js';

const REPLY = 'All tests pass. Nothing else to do.';

/** A bin directory with a `node` that logs its arguments, then runs this node, and `vox`. */
function loggingBin(root: string): { bin: string; log: string; hookStarts: () => string[] } {
  const bin = join(root, 'bin');
  const log = join(root, 'node-starts.log');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'node'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${process.execPath}' "$@"\n`);
  chmodSync(join(bin, 'node'), 0o755);
  symlinkSync(VOX, join(bin, 'vox'));
  const hookStarts = () =>
    (existsSync(log) ? readFileSync(log, 'utf8') : '').split('\n').filter((l) => /\bhook --agent\b/.test(l));
  return { bin, log, hookStarts };
}

/** A user hook of the test's own, in sh: it appends the event's name to `file`. */
const noteHook = (file: string, event: string) => `echo ${event} >> '${file}'`;

describe('silent hooks start no node in the real CLIs', () => {
  let d: Daemon;
  let root: string;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-silent-hooks-');
  });
  after(async () => {
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  test(
    'Codex: a silent PreToolUse, SessionStart and SessionEnd start none; the spoken Stop starts one',
    { skip: codexSkip },
    async () => {
      const base = join(root, 'codex');
      const project = join(base, 'shop');
      writeConfig(project, 'notify: normal');
      const { bin, hookStarts } = loggingBin(base);
      const api = await startResponsesApi((req) =>
        callOutputs(req).has('call_1')
          ? { text: REPLY }
          : { calls: [{ call_id: 'call_1', name: 'exec_command', arguments: { cmd: 'ls' } }] },
      );
      try {
        const home = join(base, 'home');
        const codexHome = join(home, '.codex');
        mkdirSync(codexHome, { recursive: true });
        const toml = ['model = "stand-in"', 'model_provider = "standin"', '[model_providers.standin]', 'name = "s"'];
        toml.push(
          `base_url = "${api.url}"`,
          'wire_api = "responses"',
          'request_max_retries = 0',
          'stream_max_retries = 0',
        );
        writeFileSync(join(codexHome, 'config.toml'), `${toml.join('\n')}\n`);
        const fired = join(base, 'fired');
        const mine = { hooks: [{ type: 'command', command: noteHook(fired, 'PreToolUse'), timeout: 5 }] };
        writeFileSync(join(codexHome, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [mine] } }));
        const env = {
          ...d.env,
          HOME: home,
          CODEX_HOME: codexHome,
          VOX_NO_AUTOSTART: '1',
          PATH: `${bin}:/usr/bin:/bin`,
          // Codex's sandbox leaves its mount targets in TMPDIR: a TMPDIR of its own, removed with root.
          TMPDIR: join(base, 'tmp'),
        };
        mkdirSync(env.TMPDIR, { recursive: true });
        const inst = await vox(['hooks', 'install', '--agent', 'codex', '--portable'], { env });
        assert.equal(inst.code, 0, inst.stderr);
        await d.idle();
        const run = await runCli(
          CODEX!,
          ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', 'List the files.'],
          { cwd: project, env, timeoutMs: 120_000 },
        );
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.trim(), REPLY);
        for (const e of ['SessionStart', 'PreToolUse', 'Stop'])
          assert.match(run.stderr, new RegExp(`hook: ${e} Completed`), `${e} ran`);
        assert.equal(readFileSync(fired, 'utf8'), 'PreToolUse\n', 'the tool call fired PreToolUse');
        assert.deepEqual(
          hookStarts(),
          ['hook --agent codex Stop'].map((s) => `${join(bin, 'vox')} ${s}`),
        );
        await d.idle();
        const spoken = (await historyInOrder(d)).filter((h) => h.session?.startsWith('shop#')).map((h) => h.text);
        assert.deepEqual(spoken, [REPLY]);
      } finally {
        await api.close();
      }
    },
  );

  test(
    'Gemini: a silent AfterTool, SessionStart and SessionEnd start none; the spoken AfterAgent starts one',
    { skip: geminiSkip },
    async () => {
      const base = join(root, 'gemini');
      const project = join(base, 'cafe');
      writeConfig(project, 'notify: normal');
      const { bin, hookStarts } = loggingBin(base);
      const api = await startGeminiApi((req) =>
        functionResponses(req).length
          ? { text: REPLY }
          : { calls: [{ name: 'list_directory', args: { dir_path: project } }] },
      );
      try {
        const home = join(base, 'home');
        mkdirSync(join(home, '.gemini'), { recursive: true });
        const fired = join(base, 'fired');
        const mine = {
          matcher: '*',
          hooks: [{ name: 'mine', type: 'command', command: noteHook(fired, 'AfterTool') }],
        };
        const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, hooks: { AfterTool: [mine] } };
        writeFileSync(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
        const env = {
          ...d.env,
          HOME: home,
          VOX_NO_AUTOSTART: '1',
          GEMINI_API_KEY: 'not-a-key',
          GOOGLE_GEMINI_BASE_URL: api.url,
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          PATH: `${bin}:/usr/bin:/bin`,
        };
        const inst = await vox(['hooks', 'install', '--agent', 'gemini', '--portable'], { env });
        assert.equal(inst.code, 0, inst.stderr);
        await d.idle();
        const run = await runGemini(['-p', 'List the files.'], { cwd: project, env, timeoutMs: 120_000 });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.trim(), REPLY);
        assert.equal(readFileSync(fired, 'utf8'), 'AfterTool\n', 'the tool call fired AfterTool');
        assert.deepEqual(
          hookStarts(),
          ['hook --agent gemini AfterAgent'].map((s) => `${join(bin, 'vox')} ${s}`),
        );
        await d.idle();
        const spoken = (await historyInOrder(d)).filter((h) => h.session?.startsWith('cafe#')).map((h) => h.text);
        assert.deepEqual(spoken, [REPLY]);
      } finally {
        await api.close();
      }
    },
  );
});
