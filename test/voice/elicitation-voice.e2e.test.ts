/**
 * An MCP server's elicitation of one choice, answered by voice
 * (approveByVoice: true), end to end: the real Claude Code (-p) with the
 * plugin from this checkout and a second MCP server (helpers/elicit-server.mjs,
 * the SDK's own Server) whose tool asks "Which environment?"; the stand-in
 * Messages API whose model calls that tool; the real voxd recording the
 * recorder shim, and the stand-in transcriber saying what the user "said".
 * What the server got back is the tool result the model saw.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSkip, runClaude } from '../helpers/claude-code.js';
import { ROOT, VOX } from '../helpers/daemon.js';
import { historyInOrder } from '../helpers/hook-expectations.js';
import {
  lastUser,
  resultText,
  toolResults,
  userText,
  type MessagesRequest,
  type Turn,
} from '../helpers/messages-api.js';
import { startVoiceRig, type VoiceRig } from '../helpers/voice-rig.js';

const TOOL = 'mcp__deploy__pick_environment';

/** The model: PICK calls the deploy server's tool; its result gets a closing answer. */
function model(req: MessagesRequest): Turn {
  const last = lastUser(req);
  if (toolResults(last).has('toolu_pick')) return { text: 'Picked.' };
  if (!req.tools?.length) return { text: 'ok' };
  if (userText(last).includes('PICK')) return { tools: [{ id: 'toolu_pick', name: TOOL, input: {} }] };
  return { text: 'Nothing to do.' };
}

describe('an elicitation of one choice answered by voice', { skip: claudeSkip }, () => {
  let rig: VoiceRig;
  let mcpConfig: string;

  before(async () => {
    rig = await startVoiceRig('vox-elicitation-voice-', model);
    mcpConfig = join(rig.home, 'deploy-mcp.json');
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: {
          deploy: { command: process.execPath, args: [join(ROOT, 'test', 'helpers', 'elicit-server.mjs')] },
        },
      }),
    );
  });
  after(() => rig?.close());

  /** One -p run whose tool elicits; the user "says" `said` (or nothing: the silent WAV). What the server got back, and the log. */
  async function run(
    name: string,
    said: string | undefined,
    frontMatter = 'approveByVoice: true',
    hooks: string[] = ['--plugin-dir', join(ROOT, 'plugin')],
  ) {
    const { api, env, home } = rig;
    const dir = rig.project(name, frontMatter);
    rig.hear(said);
    api.requests.length = 0;
    const before = rig.decisions().length;
    const debug = join(home, `${name}-debug.log`);
    const args = [
      ...hooks,
      '--mcp-config',
      mcpConfig,
      '--allowedTools',
      TOOL,
      '-p',
      'PICK please',
      '--debug-file',
      debug,
    ];
    const r = await runClaude(args, { cwd: dir, env, timeoutMs: 100_000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const result = api.requests.map((q) => q.body && toolResults(lastUser(q.body)).get('toolu_pick')).find(Boolean);
    assert.ok(
      result,
      `the model saw the tool's result; Claude Code's log:\n${readFileSync(debug, 'utf8')
        .split('\n')
        .filter((l) => /licit|deploy|vox\/hook/.test(l))
        .join('\n')}`,
    );
    const text = resultText(result.content);
    let got: { action?: string; content?: unknown } | undefined;
    try {
      got = JSON.parse(text) as { action?: string; content?: unknown };
    } catch {
      got = undefined;
    }
    return { got, text, log: readFileSync(debug, 'utf8'), logged: rig.decisions().slice(before) };
  }

  test('"production": the server gets accept with that choice; the question was spoken first, naming the server and the options', async () => {
    const r = await run('picked', 'Production.');
    assert.deepEqual(r.got, { action: 'accept', content: { environment: 'production' } }, r.text);
    assert.deepEqual(
      r.logged.map((e) => [e.transcript, e.answer, e.action, e.elicitation]),
      [['Production.', 'production', 'accept', 'deploy']],
    );
    const asked = (await historyInOrder(rig.d)).filter(
      (h) => h.session?.startsWith('picked#') && h.text.includes('asks'),
    );
    assert.deepEqual(
      asked.map((h) => h.text),
      ['picked: deploy asks: Which environment? Say staging or production. Or say cancel.'],
    );
  });

  test('vox hook Elicitation as a command hook (--settings, no plugin): "staging" is chosen; the output is its stdout', async () => {
    const settings = join(rig.home, 'command-hook-settings.json');
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: {
          Elicitation: [
            {
              matcher: '',
              hooks: [{ type: 'command', command: `'${process.execPath}' '${VOX}' hook Elicitation`, timeout: 30 }],
            },
          ],
        },
      }),
    );
    const r = await run('commanded', 'Staging, please.', 'approveByVoice: true', ['--settings', settings]);
    assert.deepEqual(r.got, { action: 'accept', content: { environment: 'staging' } }, r.text);
    assert.deepEqual(
      r.logged.map((e) => [e.answer, e.action]),
      [['staging', 'accept']],
    );
    assert.match(String(r.logged[0]!.session), /^commanded#/);
  });

  test('"cancel": the server gets cancel, with nothing chosen', async () => {
    const r = await run('cancelled', 'Cancel.');
    assert.equal(r.got?.action, 'cancel', r.text);
    assert.deepEqual(
      r.logged.map((e) => [e.answer, e.action]),
      [['cancel', 'cancel']],
    );
  });

  for (const [name, said, why] of [
    ['silent', undefined, /nothing heard/],
    ['unclear', 'the big one', /not an answer of the grammar \(staging, production, cancel, decline\)/],
  ] as const) {
    test(`${name}: no answer from vox; Claude Code's own dialog path decides (under -p, nothing is chosen)`, async () => {
      const r = await run(name, said);
      assert.notEqual(r.got?.action, 'accept', r.text);
      assert.equal(r.logged.length, 1, JSON.stringify(r.logged));
      assert.equal(r.logged[0]!.action, null);
      assert.match(String(r.logged[0]!.reason), why);
    });
  }

  test('a project without approveByVoice is never listened to', async () => {
    const heard = rig.stt.received.length;
    const r = await run('not-opted', 'Production.', 'notify: normal');
    assert.notEqual(r.got?.action, 'accept', r.text);
    assert.deepEqual(r.logged, []);
    assert.equal(rig.stt.received.length, heard, 'nothing was recorded or transcribed');
    assert.match(r.log, /mcp_tool calling plugin:vox:vox\/hook/, 'the Elicitation hook ran, and said nothing');
  });
});
