/**
 * The vox mod's `/vox-talk` (plugin/hooks/vox-mod.tsx, talk.ts) in the real
 * Claude Code, interactive in tmux, offline against the stand-in Messages
 * API, with the real voxd recording the recorder shim (it plays the spoken
 * fixture, or silence) and the stand-in transcriber on 127.0.0.1:
 *
 * - `/vox-talk` starts a turn in this session whose prompt is the transcript,
 *   marked as spoken: the Messages API receives it as the user's message, and
 *   the session's speech playing when the key was pressed is cut (barge-in);
 * - its chord, ctrl+x t as `vox setup` binds it, does the same;
 * - a second press ends the recording at once (the band shows the microphone open for this session);
 * - an empty transcript, and silence, submit nothing: a quiet line says so;
 * - voxd's token is nowhere Claude Code writes or draws.
 * From the end of the fixture's speech to the prompt reaching the Messages
 * API is reported against silenceMs + the recognizer + 50 ms, not asserted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinnedSkip } from '../helpers/claude-code.js';
import { startInteractiveClaude, type InteractiveClaude } from '../helpers/claude-tmux.js';
import { ROOT, waitFor } from '../helpers/daemon.js';
import { lastUser, userText, type MessagesRequest } from '../helpers/messages-api.js';
import { needTool } from '../helpers/tools.js';
import { startVoiceRig, type VoiceRig } from '../helpers/voice-rig.js';
import {
  applyKeybindings,
  keybindingsPath,
  planKeybinding,
  VOX_KEYS,
} from '../../packages/vox-mcp/src/setup/claude-keys.js';

/** Where the fixture's speech ends after the shim starts (scripts/make-listen-fixture.mjs prints it). */
const SPEECH_END_MS = 300 + 1740;
const SILENCE_MS = 1200;
const LONG =
  'I rewrote the invoice exporter so that every currency is rounded once at the very end of the calculation and never on the way there. The nightly export now matches the ledger to the cent for all of last month.';

describe('/vox-talk in the real Claude Code, in tmux', { skip: pinnedSkip || needTool('tmux') }, () => {
  let rig: VoiceRig;
  let cc: InteractiveClaude;
  /** Each prompt the model was asked about, with when the request arrived. */
  const prompts: Array<{ text: string; at: number }> = [];
  const model = (req: MessagesRequest) => {
    const text = userText(lastUser(req));
    if (!prompts.some((p) => p.text === text)) prompts.push({ text, at: Date.now() });
    return { text: 'Done.' };
  };
  const screen = (re: RegExp, what: string) =>
    waitFor(() => (re.test(cc.pane()) ? true : undefined), 30_000, what).catch((e: Error) => {
      throw new Error(`${e.message}; the screen:\n${cc.pane()}`);
    });
  const spokenPrompt = (words: string) =>
    waitFor(() => prompts.find((p) => p.text.includes(`(spoken) ${words}`)), 30_000, `the prompt "${words}"`);
  const micStart = () =>
    waitFor(
      () => {
        const f = join(rig.home, 'mic.pid');
        return existsSync(f) ? Number(readFileSync(f, 'utf8').split(' ')[1]) || undefined : undefined;
      },
      20_000,
      'the recorder to start',
    );
  /** voxd's log line `msg` of the last listen. */
  const voxdLog = (msg: string) => {
    const log = join(rig.d.home, 'logs', 'voxd.log');
    const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    return lines
      .map((l) => JSON.parse(l) as { msg?: string; time: number; transcribeMs?: number })
      .findLast((l) => l.msg === msg);
  };

  before(async () => {
    // Real time: speech is still playing when /vox-talk barges in.
    rig = await startVoiceRig('vox-claude-mod-talk-', model, { realtime: true });
    const project = rig.project('web', 'notify: normal');
    applyKeybindings(VOX_KEYS.map((k) => planKeybinding(keybindingsPath(rig.env, rig.home), { remove: false }, k)));
    cc = await startInteractiveClaude({
      home: rig.home,
      project,
      env: rig.env as Record<string, string>,
      args: ['--plugin-dir', join(ROOT, 'plugin'), '--permission-mode', 'default'],
      name: 'mod-talk',
    });
    await screen(/vox · quiet/, 'the band');
  });
  after(async () => {
    await cc?.close();
    await rig?.close();
  });

  test("/vox-talk: the transcript is this session's next prompt, marked as spoken; speech playing is cut", async (t) => {
    rig.hear('Run the tests in the api folder.');
    // Speech playing when the key is pressed (another session's): the listen barges in.
    const playing = await rig.d.api('POST', '/v1/speak', { text: LONG, session: 'api#abc123', priority: 'text' });
    assert.equal(playing.status, 202);
    const outcome = async () =>
      ((await rig.d.api('GET', '/v1/status')).body.history as Array<{ id: string; outcome: string }>).find(
        (h) => h.id === playing.body.id,
      )?.outcome;
    await waitFor(async () => ((await outcome()) === 'playing' ? true : undefined), 15_000, 'the speech to play');
    cc.type('/vox-talk');
    await screen(/listening: speak, then pause/, "the command's answer");
    const start = await micStart();
    const got = await spokenPrompt('Run the tests in the api folder.');
    assert.equal(await outcome(), 'interrupted', 'cut by the listen');
    // The prompt is the person's words (asUser), not framed as the plugin's message.
    assert.doesNotMatch(got.text, /plugin sent a message/);
    await screen(/Done\./, "the model's answer in this session");
    // Reported, not asserted (habit 22). The mod's submit, as Claude Code's debug log stamps it (ms).
    const submitted = /^(\S+) \[DEBUG\] \$\.prompt\.submit \(vox\)/m.exec(readFileSync(cc.debug, 'utf8'))?.[1];
    const end = start + SPEECH_END_MS;
    const recognizer = voxdLog('transcribed')?.transcribeMs ?? 0;
    const at = submitted ? Date.parse(submitted) : NaN;
    t.diagnostic(
      `end of speech to $.prompt.submit: ${at - end} ms (voxd's answer to it: ${at - (voxdLog('listen')?.time ?? NaN)} ms), to the prompt at the Messages API: ${got.at - end} ms; budget silenceMs ${SILENCE_MS} + recognizer ${recognizer} + 50 = ${SILENCE_MS + recognizer + 50} ms`,
    );
  });

  test('the chord vox setup binds, ctrl+x t, runs /vox-talk', async () => {
    rig.hear('Show me the failing test.');
    cc.tmux('send-keys', '-t', 'cc', 'C-x', 't');
    await spokenPrompt('Show me the failing test.');
  });

  test('an empty transcript submits nothing: a quiet line says so', async () => {
    rig.hear('');
    const before = prompts.length;
    cc.type('/vox-talk');
    await screen(/vox-talk: nothing was heard; nothing sent/, 'the quiet line');
    assert.equal(prompts.length, before, 'no prompt reached the model');
    assert.equal(rig.stt.received.length >= 1, true, 'the transcriber was asked');
  });

  test('silence submits nothing: the quiet line says no speech came', async () => {
    rig.hear();
    const before = prompts.length;
    cc.type('/vox-talk');
    await screen(/vox-talk: no speech within \d+ ms; nothing sent/, 'the quiet line');
    assert.equal(prompts.length, before, 'no prompt reached the model');
  });

  test('a second /vox-talk ends the recording at once: nothing was said, so nothing is sent', async () => {
    // The microphone stays quiet longer than the start timeout would wait; only the second press ends it.
    writeFileSync(join(rig.home, 'mic.json'), JSON.stringify({ leadMs: 60_000 }));
    const before = prompts.length;
    // The band of the listen before this one is gone first: the open microphone seen next is this listen's.
    await screen(/ · mic: closed · /, 'the band to show the microphone closed');
    cc.type('/vox-talk');
    await screen(/mic: open, web#\w+ \(this session\)/, 'the band to show the microphone open for this session');
    cc.type('/vox-talk');
    await screen(/vox: ending the recording/, "the second press's answer");
    await screen(/vox-talk: no speech was heard; nothing sent/, 'the quiet line');
    assert.equal(prompts.length, before, 'no prompt reached the model');
  });

  test("voxd's token is never on the screen, in Claude Code's debug log or in the transcript", () => {
    const where: Record<string, string> = { screen: cc.pane(), 'debug log': readFileSync(cc.debug, 'utf8') };
    const projects = join(rig.home, '.claude', 'projects');
    for (const dir of existsSync(projects) ? readdirSync(projects, { recursive: true, withFileTypes: true }) : [])
      if (dir.isFile()) where[dir.name] = readFileSync(join(dir.parentPath, dir.name), 'utf8');
    assert.ok(where['debug log']!.includes('/v1/listen'), 'the debug log has the mod listening through voxd');
    for (const [name, text] of Object.entries(where))
      assert.ok(!text.includes(rig.d.token), `the token is in the ${name}`);
  });
});
