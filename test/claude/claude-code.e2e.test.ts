/**
 * The real Claude Code CLI (the pinned version, test/helpers/claude-code.ts)
 * with the vox plugin installed from this repository's marketplace, in `-p`
 * mode against a loopback stand-in for the Messages API that scripts the
 * model's turns, and the real voxd (file sink, real time).
 *
 * Run 1: the model calls speak, then answers; the plugin's Stop hook (an
 * mcp_tool hook on the session's own vox mcp) speaks the start of that answer.
 * Run 2 resumes the session: the model calls stop, which stops the summary
 * still playing, because the hook and the model's tools share one session label.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { claudeSkip, runClaude, type ClaudeRun } from '../helpers/claude-code.js';
import { ROOT, removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';
import {
  offlineClaudeEnv,
  resultText,
  startMessagesApi,
  toolResults,
  userText,
  type MessagesRequest,
  type StandIn,
  type Turn,
} from '../helpers/messages-api.js';
import { wavStats } from '../helpers/wav.js';

const skip = claudeSkip;

const SESSION = 'c0de0000-1111-4222-8333-444455556666';
const SPOKEN = 'The build is green.';
const SUMMARY =
  'I refactored the checkout module into three smaller files and added tests for every refund path. All forty seven tests pass now, and the rounding bug in the totals is fixed.';
const LONG_PROMPT = Array.from(
  { length: 12 },
  (_, i) => `Other project needs your permission, request number ${i + 1}.`,
).join(' ');
const TOOL = (name: string) => `mcp__plugin_vox_vox__${name}`;

/** The model: run 1 speaks and answers, run 2 (prompt "RUN2") stops and answers. */
function model(req: MessagesRequest): Turn {
  const results = toolResults(req);
  if (results.has('toolu_speak')) return { text: SUMMARY };
  if (results.has('toolu_stop')) return { text: 'Stopped.' };
  if (!req.tools?.length) return { text: 'ok' };
  const last = req.messages.at(-1);
  const prompt = last ? userText({ ...req, messages: [last] }) : '';
  if (prompt.includes('RUN2')) return { tools: [{ id: 'toolu_stop', name: TOOL('stop'), input: {} }] };
  return { tools: [{ id: 'toolu_speak', name: TOOL('speak'), input: { text: SPOKEN } }] };
}

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
  priority: string;
  outcome: string;
}

describe('the real Claude Code with the vox plugin', { skip }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  function claude(args: string[], cwd = project): Promise<ClaudeRun> {
    return runClaude(args, { cwd, env });
  }

  async function history(): Promise<HistoryEntry[]> {
    return (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
  }

  before(async () => {
    d = await startDaemon();
    api = await startMessagesApi(model);
    home = tempDir('vox-claude-home-');
    project = join(home, 'ccproj');
    // A slow voice keeps the Stop summary audible for a good while (it still has to be when the test looks).
    mkdirSync(join(project, '.vox'), { recursive: true });
    writeFileSync(join(project, '.vox', 'config.md'), '---\nrate: 100\n---\n');
    // Node for the plugin's launcher, and the system's basics: no vox anywhere on PATH.
    env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('installs from the marketplace, speaks once, hooks speak through mcp_tool, stop stops the hook speech', async () => {
    for (const dir of env.PATH!.split(delimiter))
      assert.equal(existsSync(join(dir, 'vox')), false, `vox must not be on PATH (${dir})`);

    const added = await claude(['plugin', 'marketplace', 'add', ROOT], home);
    assert.equal(added.code, 0, added.stderr + added.stdout);
    const installed = await claude(['plugin', 'install', 'vox@vox'], home);
    assert.equal(installed.code, 0, installed.stderr + installed.stdout);
    // Claude Code runs a copy of plugin/ from its cache: it reaches vox through the launcher, not PATH.
    const cache = join(home, '.claude', 'plugins', 'cache', 'vox', 'vox');
    const [version] = readdirSync(cache);
    const hooks = JSON.parse(readFileSync(join(cache, version!, 'hooks', 'hooks.json'), 'utf8'));
    assert.deepEqual(
      hooks.hooks.Stop[0].hooks.map((h: { type: string; server?: string }) => [h.type, h.server]),
      [['mcp_tool', 'plugin:vox:vox']],
    );

    const allowed = ['--allowedTools', `${TOOL('speak')},${TOOL('stop')}`];
    const debug = join(home, 'claude-debug.log');
    const run1 = await claude([
      '-p',
      'Tell me when the build is done.',
      '--session-id',
      SESSION,
      ...allowed,
      '--debug-file',
      debug,
    ]);
    assert.equal(run1.code, 0, `${run1.stderr}\n${run1.stdout}`);
    assert.match(run1.stdout, /refactored the checkout module/);

    // The model was offered vox's eight tools (Claude Code 2.1.332 defers MCP tools behind ToolSearch and
    // names them in the system prompt), never the hidden hook tool.
    const offered = new Set<string>();
    for (const r of api.requests)
      for (const m of JSON.stringify(r.body ?? {}).matchAll(/mcp__plugin_vox_vox__\w+/g)) offered.add(m[0]);
    assert.deepEqual(
      [...offered].sort(),
      ['configure', 'converse', 'listen', 'recap', 'record', 'speak', 'status', 'stop', 'voices'].map(TOOL),
    );

    // What the model got back from speak: compact JSON with every fact.
    const speakResult = api.requests.map((r) => r.body && toolResults(r.body).get('toolu_speak')).find(Boolean);
    assert.ok(speakResult, 'the stand-in saw the result of speak');
    assert.notEqual(speakResult.is_error, true, resultText(speakResult.content));
    const text = resultText(speakResult.content);
    const facts = JSON.parse(text) as Record<string, unknown>;
    assert.equal(text, JSON.stringify(facts), 'compact JSON, nothing else');
    assert.ok(['queued', 'playing', 'played'].includes(String(facts.status)), text);
    assert.match(String(facts.id), /\S/);
    assert.equal(facts.priority, 'message');
    // Spoken as given (no "spoken" rewrite), with no reason to report.
    assert.equal(facts.spoken, undefined, text);
    assert.equal(facts.why, undefined, text);

    // The Stop hook went through the session's own server (Claude Code's debug log names the call).
    const log = readFileSync(debug, 'utf8');
    assert.match(log, /mcp_tool calling plugin:vox:vox\/hook/);
    // At exit Claude Code signals its stdio servers (SIGINT, SIGTERM 100 ms later, SIGKILL 400 ms after
    // that) and never closes their stdin: vox mcp ends on a signal, so it is never SIGKILLed. Whether it
    // beat the 100 ms to SIGTERM is a duration, which a loaded machine decides: bench/claude-exit.mjs
    // and the fresh-machine job's claude-check.mjs look at that; test/signals.e2e checks the exit itself.
    assert.match(log, /MCP server "plugin:vox:vox": Sending SIGINT to MCP server process/);
    assert.doesNotMatch(log, /MCP server "plugin:vox:vox": .*sending SIGKILL/i);
    const summary = await waitFor(
      async () => (await history()).find((h) => h.text.startsWith('I refactored the checkout module')),
      20_000,
      'the Stop summary',
    );
    assert.equal(
      summary.session,
      'ccproj#c0de00',
      "the label of Claude Code's session id (CLAUDE_CODE_SESSION_ID = the payload's session_id)",
    );
    assert.equal(summary.priority, 'text');

    // Another session's permission prompt arrives while the summary waits or plays: it holds the
    // summary (paused, to resume after it), so the next run's stop finds it however slowly claude starts.
    // (The model's own speak has been heard by then: it plays before the summary.)
    await waitFor(
      async () => (await history()).some((h) => h.text === SPOKEN && h.outcome === 'played'),
      30_000,
      'speak to be played',
    );
    const status = (await d.api('GET', '/v1/status')).body as {
      playing: { id: string } | null;
      queue: { items: Array<{ id: string }> };
    };
    assert.ok(
      status.playing?.id === summary.id || status.queue.items.some((q) => q.id === summary.id),
      `the summary is still to be heard: ${JSON.stringify(status.playing)}`,
    );
    const other = await d.api('POST', '/v1/speak', {
      text: LONG_PROMPT,
      session: 'other#0a0b0c',
      priority: 'important',
    });
    assert.equal(other.body.status, 'queued', JSON.stringify(other.body));

    const run2 = await claude(['-p', 'RUN2 quiet please', '--resume', SESSION, ...allowed]);
    assert.equal(run2.code, 0, `${run2.stderr}\n${run2.stdout}`);
    const stopResult = api.requests.map((r) => r.body && toolResults(r.body).get('toolu_stop')).find(Boolean);
    assert.ok(stopResult, 'the stand-in saw the result of stop');
    const stopped = JSON.parse(resultText(stopResult.content)) as { stopped: string[]; session: string };
    assert.equal(stopped.session, summary.session, "the model's stop targets the hook's session");
    assert.ok(stopped.stopped.includes(summary.id), `stop stopped the hook's summary: ${JSON.stringify(stopped)}`);

    await d.api('POST', '/v1/stop', { scope: 'session', session: 'other#0a0b0c' });
    await d.idle();
    const all = await history();
    assert.equal(all.find((h) => h.id === summary.id)?.outcome, 'stopped');
    const spoken = all.filter((h) => h.text === SPOKEN);
    assert.equal(spoken[0]?.session, summary.session, 'one identity for the tools and the hooks');
    assert.deepEqual(
      spoken.map((h) => h.outcome),
      ['played'],
      'speak was played once',
    );
    // One WAV per utterance that reached the sink, in order: the first is speak's, whole and not silence.
    const wavs = d.wavs().map((f) => wavStats(f));
    assert.ok(wavs.length >= 2, `${wavs.length} WAVs: speak's and the summary's at least`);
    assert.ok(wavs[0]!.durationMs > 1000 && wavs[0]!.rms > 0.01, JSON.stringify(wavs[0]));
  });
});
