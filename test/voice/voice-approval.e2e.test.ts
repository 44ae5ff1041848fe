/**
 * Permission prompts answered by voice (approveByVoice: true), end to end:
 * the real Claude Code (-p, --permission-mode default, so a Bash call asks)
 * with the plugin from this checkout, the stand-in Messages API whose model
 * calls Bash, the real voxd recording the recorder shim (it plays a WAV
 * fixture spoken by vox's own eSpeak-NG, or a silent one), and the stand-in
 * transcriber on 127.0.0.1 saying what the user "said". Then two `vox mcp`
 * processes asking at once through their hook tools, against one voxd.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { claudeSkip, runClaude, type ClaudeRun } from '../helpers/claude-code.js';
import { ROOT, removeDir, tempDir, VOX, type Daemon } from '../helpers/daemon.js';
import {
  lastUser,
  resultText,
  toolResults,
  userText,
  type MessagesRequest,
  type StandIn,
  type Turn,
} from '../helpers/messages-api.js';
import type { TranscriptionApi } from '../helpers/transcription-api.js';
import { startVoiceRig, type VoiceRig } from '../helpers/voice-rig.js';
import { decideByVoice, type PermissionAsk } from '../../packages/vox-mcp/src/hooks/voice/voice-decision.js';
import { resolveConfig } from '../../packages/vox-mcp/src/project/config.js';

const MARK = 'ran-by-voice-4242';

/** The model: BASH asks to run a command that prints MARK; a tool result gets a closing answer. */
function model(req: MessagesRequest): Turn {
  const last = lastUser(req);
  const results = toolResults(last);
  if (results.has('toolu_voice')) return { text: 'Done with the command.' };
  if (!req.tools?.length) return { text: 'ok' };
  if (userText(last).includes('BASH'))
    return {
      tools: [
        {
          id: 'toolu_voice',
          name: 'Bash',
          input: { command: `echo ${MARK} > ran.txt; echo ${MARK}`, description: 'Print a mark' },
        },
      ],
    };
  return { text: 'Nothing to do.' };
}

interface Logged {
  session: string;
  requestId: string;
  sessionId?: string;
  toolUseId?: string;
  tool: string;
  transcript: string;
  answer: string | null;
  behavior: string | null;
  reason: string;
}

describe('permission prompts answered by voice', () => {
  let rig: VoiceRig;
  let d: Daemon;
  let api: StandIn;
  let stt: TranscriptionApi;
  let home: string;
  let env: NodeJS.ProcessEnv;

  const decisions = () => rig.decisions<Logged>();
  const project = (name: string, frontMatter: string) => rig.project(name, frontMatter);

  function claude(cwd: string, args: string[], plugin = true): Promise<ClaudeRun> {
    return runClaude([...(plugin ? ['--plugin-dir', join(ROOT, 'plugin')] : []), ...args], {
      cwd,
      env,
      timeoutMs: 100_000,
    });
  }

  /** The Bash tool_result the stand-in saw, if any. */
  function bashResult(): { content: unknown; is_error?: boolean } | undefined {
    return api.requests.map((r) => r.body && toolResults(lastUser(r.body)).get('toolu_voice')).find(Boolean);
  }

  before(async () => {
    rig = await startVoiceRig('vox-voice-approval-', model);
    ({ d, api, stt, home, env } = rig);
  });
  after(() => rig?.close());

  /** One -p run whose Bash call asks; the user "says" `said` (or nothing: the silent WAV). */
  async function run(name: string, said: string | undefined, frontMatter = 'approveByVoice: true') {
    const dir = project(name, frontMatter);
    rig.hear(said);
    api.requests.length = 0;
    const before = decisions().length;
    const debug = join(home, `${name}-debug.log`);
    const r = await claude(dir, ['-p', 'BASH please', '--permission-mode', 'default', '--debug-file', debug]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const log = readFileSync(debug, 'utf8');
    assert.match(log, /executePermissionRequestHooks called for tool: Bash/);
    assert.match(log, /mcp_tool calling plugin:vox:vox\/hook/);
    return { dir, log, logged: decisions().slice(before), ran: existsSync(join(dir, 'ran.txt')), result: bashResult() };
  }

  test('"allow": the command runs and the model sees its output', { skip: claudeSkip }, async () => {
    const r = await run('allowed', 'Allow.');
    assert.ok(r.result, 'the stand-in saw the Bash tool_result');
    assert.notEqual(r.result.is_error, true, resultText(r.result.content));
    assert.match(resultText(r.result.content), new RegExp(MARK));
    assert.equal(r.ran, true);
    assert.equal(r.logged.length, 1, JSON.stringify(r.logged));
    const [entry] = r.logged;
    assert.equal(entry!.transcript, 'Allow.');
    assert.equal(entry!.behavior, 'allow');
    assert.match(entry!.session, /^allowed#/);
    assert.match(entry!.requestId, /\S/);
    // Claude Code's own session id, so the decision can be matched to the session's transcript and tool call.
    assert.match(entry!.sessionId ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-/, JSON.stringify(entry));
    assert.equal(entry!.session, `allowed#${entry!.sessionId!.replace(/[^a-zA-Z0-9]/g, '').slice(0, 6)}`);
    // Claude Code 2.1.332 sends no tool_use_id with PermissionRequest: none is made up.
    assert.equal(entry!.toolUseId, undefined);
    // What was asked, by name and the command whole, every character said (hooks/voice/spoken-command.ts), before listening.
    const history = (await d.api('GET', '/v1/status')).body.history as Array<{ text: string; session?: string }>;
    const asked = history.filter((h) => h.session === entry!.session && h.text.includes('wants to run'));
    assert.deepEqual(
      asked.map((h) => h.text),
      [
        'allowed wants to run echo ran dash by dash voice dash 4242 greater-than ran dot txt semicolon echo ran dash by dash voice dash 4242. Allow or deny?',
      ],
    );
  });

  test(
    '"always allow" is not offered where the prompt would add a directory: it decides nothing',
    { skip: claudeSkip },
    async () => {
      // Claude Code 2.1.332 suggests addDirectories (the project's folder, for the session) for this command: a grant
      // the question would not name, so "always" is not offered (hooks/voice/always-rules.ts). Before, "Always allow."
      // granted the directory while the question said only "Allow, always, or deny?".
      const r = await run('always', 'Always allow.');
      assert.equal(r.ran, false, 'under -p, no decision is a denial');
      assert.deepEqual(
        r.logged.map((e) => [e.transcript, e.answer, e.behavior, e.reason]),
        [['Always allow.', null, null, 'not an answer of the grammar (allow, deny)']],
      );
      assert.doesNotMatch(r.log, /Applying permission update/);
    },
  );

  test(
    '"deny": the command does not run, and the model is told it was denied by voice',
    { skip: claudeSkip },
    async () => {
      const r = await run('denied', 'Deny.');
      assert.equal(r.ran, false);
      assert.ok(r.result, 'the stand-in saw the Bash tool_result');
      assert.equal(r.result.is_error, true);
      assert.match(resultText(r.result.content), /Denied by voice/);
      assert.doesNotMatch(resultText(r.result.content), new RegExp(`^${MARK}`, 'm'));
      assert.deepEqual(
        r.logged.map((e) => [e.transcript, e.behavior]),
        [['Deny.', 'deny']],
      );
      assert.match(r.log, /returned permissionDecision: deny/);
    },
  );

  for (const [name, said, why] of [
    ['silent', undefined, /nothing heard \(timeout\)/],
    ['noisy', 'Thank you for watching.', /not an answer of the grammar/],
    ['near-miss', 'a low', /not an answer of the grammar/],
  ] as const) {
    test(
      `${name}: no decision from vox; Claude Code's own default (under -p, denial) stands`,
      { skip: claudeSkip },
      async () => {
        const r = await run(name, said);
        assert.equal(r.ran, false);
        assert.equal(r.logged.length, 1, JSON.stringify(r.logged));
        assert.equal(r.logged[0]!.behavior, null);
        assert.match(r.logged[0]!.reason, why);
        // Claude Code got the hook's empty result: no decision from it, and its own prompt path decided.
        assert.match(r.log, /executePermissionRequestHooks called for tool: Bash/);
        assert.doesNotMatch(r.log, /returned permissionDecision/);
        assert.doesNotMatch(r.log, /Denied by voice/);
        assert.ok(r.result, 'the stand-in saw the Bash tool_result');
        assert.equal(r.result.is_error, true);
        assert.doesNotMatch(resultText(r.result.content), /Denied by voice/);
      },
    );
  }

  test(
    'vox hook as a command hook (--settings, no plugin): "allow" runs the command; the decision is its stdout',
    { skip: claudeSkip },
    async () => {
      const dir = project('commanded', 'approveByVoice: true');
      rig.hear('');
      stt.mode = { kind: 'ok', text: 'yes' };
      api.requests.length = 0;
      const before = decisions().length;
      const settings = join(home, 'command-hook-settings.json');
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: {
            PermissionRequest: [
              {
                matcher: '',
                hooks: [
                  { type: 'command', command: `'${process.execPath}' '${VOX}' hook PermissionRequest`, timeout: 30 },
                ],
              },
            ],
          },
        }),
      );
      const debug = join(home, 'commanded-debug.log');
      const r = await claude(
        dir,
        ['-p', 'BASH please', '--permission-mode', 'default', '--settings', settings, '--debug-file', debug],
        false,
      );
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const log = readFileSync(debug, 'utf8');
      assert.match(log, /returned permissionDecision: allow/);
      assert.equal(existsSync(join(dir, 'ran.txt')), true);
      assert.match(resultText(bashResult()?.content), new RegExp(MARK));
      const logged = decisions().slice(before);
      assert.deepEqual(
        logged.map((e) => [e.transcript, e.behavior, e.tool]),
        [['yes', 'allow', 'Bash']],
      );
      assert.match(logged[0]!.session, /^commanded#/);
    },
  );

  test('a project without approveByVoice is never listened to', { skip: claudeSkip }, async () => {
    const heard = stt.received.length;
    const r = await run('not-opted', 'Allow.', 'notify: normal');
    assert.equal(r.ran, false);
    assert.deepEqual(r.logged, []);
    assert.equal(stt.received.length, heard, 'nothing was recorded or transcribed');
  });

  test('the model cannot turn it on: configure refuses approveByVoice and does not offer it', async () => {
    const dir = project('modelled', 'notify: normal');
    const before = readFileSync(join(dir, '.vox', 'config.md'), 'utf8');
    const client = new Client({ name: 'voice-approval-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [VOX, 'mcp'],
        cwd: dir,
        env: { ...(env as Record<string, string>), VOX_NO_AUTOSTART: '1' },
        stderr: 'pipe',
      }),
    );
    try {
      const tools = await client.listTools();
      const configure = tools.tools.find((t) => t.name === 'configure');
      assert.ok(configure);
      assert.equal(Object.hasOwn(configure.inputSchema.properties ?? {}, 'approveByVoice'), false);
      assert.equal(
        Object.hasOwn(configure.inputSchema.properties ?? {}, 'unattendedPrompts'),
        true,
        'the other keys are still offered',
      );
      const r = (await client.callTool({ name: 'configure', arguments: { approveByVoice: true } })) as CallToolResult;
      assert.equal(r.isError, true);
      assert.match((r.content[0] as { text: string }).text, /approveByVoice is the user's to set, not the model's/);
      assert.equal(readFileSync(join(dir, '.vox', 'config.md'), 'utf8'), before, 'the file is unchanged');
    } finally {
      await client.close();
    }
  });

  test('two sessions asking at once are answered in order, each with its own answer', async () => {
    const dirs = [project('first', 'approveByVoice: true'), project('second', 'approveByVoice: true')];
    rig.hear('');
    // The transcriber answers in the order it is asked: the first listen hears "allow", the next "deny".
    const answers = ['allow', 'deny'];
    stt.mode = {
      kind: 'custom',
      respond(res) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ text: answers.shift() ?? '' }));
      },
    };
    const before = decisions().length;
    stt.received.length = 0;
    const clients = await Promise.all(
      dirs.map(async (cwd) => {
        const client = new Client({ name: 'voice-approval-test', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [VOX, 'mcp'],
            cwd,
            env: { ...(env as Record<string, string>), VOX_NO_AUTOSTART: '1' },
            stderr: 'pipe',
          }),
        );
        return client;
      }),
    );
    try {
      const ask = (i: number) =>
        clients[i]!.callTool(
          {
            name: 'hook',
            arguments: {
              event: 'PermissionRequest',
              session_id: `0000000${i}-aaaa-4bbb-8ccc-dddddddddddd`,
              cwd: dirs[i],
              tool_name: 'Bash',
              tool_input: JSON.stringify({ command: `make target${i}` }),
              permission_suggestions: '',
              tool_use_id: `toolu_two_${i}`,
            },
          },
          undefined,
          { timeout: 60_000 },
        ) as Promise<CallToolResult>;
      const first = ask(0);
      await new Promise((r) => setTimeout(r, 30));
      const second = ask(1);
      const [a, b] = await Promise.all([first, second]);
      const text = (r: CallToolResult) => (r.content[0] as { text?: string } | undefined)?.text ?? '';
      const results = [a, b].map((r) => JSON.parse(text(r)).hookSpecificOutput.decision.behavior as string);
      // Who took the first turn is a race; the turns are in order and each answer is its own.
      const logged = decisions().slice(before);
      assert.equal(logged.length, 2, JSON.stringify(logged));
      const order = logged.map((e) => Number(e.requestId.replace('toolu_two_', '')));
      assert.deepEqual([...order].sort(), [0, 1]);
      // The payload's own ids, as they came: a decision matches its tool call.
      assert.deepEqual(
        logged.map((e) => [e.toolUseId, e.sessionId]),
        order.map((i) => [`toolu_two_${i}`, `0000000${i}-aaaa-4bbb-8ccc-dddddddddddd`]),
      );
      assert.deepEqual(
        logged.map((e) => [e.transcript, e.behavior]),
        [
          ['allow', 'allow'],
          ['deny', 'deny'],
        ],
      );
      assert.equal(results[order[0]!], 'allow', 'the first turn got the first answer');
      assert.equal(results[order[1]!], 'deny', 'the second turn got the second answer');
      // The questions were spoken in the same order as the turns: each answer followed its own question.
      const history = (
        (await d.api('GET', '/v1/status')).body.history as Array<{ text: string; acceptedAt: string }>
      ).reverse();
      const asked = history.filter((h) => /wants to run make target/.test(h.text));
      const names = ['first', 'second'];
      assert.deepEqual(
        asked.map((h) => h.text),
        order.map((i) => `${names[i]} wants to run make target${i}. Allow or deny?`),
      );
      // The second question was not even asked before the first answer had been recorded and sent to the transcriber.
      const firstHeardAt = stt.received[stt.received.length - 2]!.at;
      assert.ok(
        Date.parse(asked[1]!.acceptedAt) >= firstHeardAt,
        `second asked at ${asked[1]!.acceptedAt}, first answer heard at ${new Date(firstHeardAt).toISOString()}`,
      );
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  describe("late, busy and absent: no decision within the turn's own bound", () => {
    const askOf = (name: string, id: string): PermissionAsk => ({
      session: `${name}#1`,
      projectName: name,
      tool: 'Bash',
      toolInput: { command: 'npm test' },
      requestId: id,
    });
    const voxEnv = () => ({ VOX_HOME: d.home, VOX_NO_AUTOSTART: '1' });

    test('an "allow" that comes after the budget decides nothing', async () => {
      const dir = project('late', 'approveByVoice: true');
      rig.hear('');
      stt.mode = { kind: 'ok', text: 'allow', delayMs: 6000 };
      const t0 = Date.now();
      const r = await decideByVoice(voxEnv(), await resolveConfig(dir), askOf('late', 'toolu_late'), {
        budgetMs: 4000,
      });
      const elapsed = Date.now() - t0;
      assert.equal(r.output, undefined, JSON.stringify(r));
      assert.equal(r.answer, undefined);
      const logged = decisions().find((e) => e.requestId === 'toolu_late');
      assert.equal(logged?.behavior, null);
      console.log(`late answer: no decision after ${elapsed} ms (budget 4000 ms): ${r.reason}`);
    });

    test('a microphone held by another listener for the whole turn decides nothing', async () => {
      const dir = project('busy', 'approveByVoice: true');
      rig.hear();
      stt.mode = { kind: 'ok', text: 'allow' };
      const holder = d.api('POST', '/v1/listen', { startTimeoutMs: 8000, maxSeconds: 10, session: 'other#1' });
      await new Promise((r) => setTimeout(r, 500));
      const t0 = Date.now();
      const r = await decideByVoice(voxEnv(), await resolveConfig(dir), askOf('busy', 'toolu_busy'), {
        budgetMs: 3000,
      });
      const elapsed = Date.now() - t0;
      assert.equal(r.output, undefined, JSON.stringify(r));
      assert.equal((await holder).status, 200);
      console.log(`busy microphone: no decision after ${elapsed} ms (budget 3000 ms): ${r.reason}`);
    });

    test('no voxd: no decision, at once', async () => {
      const dir = project('absent', 'approveByVoice: true');
      const empty = tempDir('vox-voice-absent-');
      try {
        const t0 = Date.now();
        const r = await decideByVoice(
          { VOX_HOME: empty, VOX_NO_AUTOSTART: '1' },
          await resolveConfig(dir),
          askOf('absent', 'toolu_absent'),
          { budgetMs: 3000 },
        );
        assert.equal(r.output, undefined);
        assert.match(r.reason, /no decision/);
        console.log(`no voxd: no decision after ${Date.now() - t0} ms: ${r.reason}`);
      } finally {
        removeDir(empty);
      }
    });
  });
});
