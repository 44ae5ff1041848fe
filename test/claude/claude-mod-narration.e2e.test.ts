/**
 * The vox mod's narration from `turn.step` in the real Claude Code,
 * interactive in tmux, offline against the stand-in Messages API (a line
 * every 300 ms, as a model writes), with the plugin from this checkout and
 * the mod as shipped (no VOX_CLAUDE_MOD_NARRATION: on by default).
 *
 * - A project that sets `narrate: stream`: its `vox mcp` declares the session
 *   narrating (POST /v1/narration/session), MessageDisplay is active as well,
 *   both paths send the reply to voxd, and each sentence is spoken once, in
 *   order, from whichever path sent first (usually the mod, which sees the
 *   text as it streams; on a loaded machine MessageDisplay may be first); the
 *   other path's batches are dropped, with why.
 * - A project that does not narrate (`narrate: summary`): its `vox mcp`
 *   declares so, and the mod's batches are dropped, with the config's words in
 *   voxd's log; nothing of the reply is narrated, and the turn's summary is
 *   said once, by the Stop hook, as before.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinnedSkip } from '../helpers/claude-code.js';
import { startInteractiveClaude, type InteractiveClaude } from '../helpers/claude-tmux.js';
import { ROOT, removeDir, startDaemon, tempDir, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import { lastUser, offlineClaudeEnv, startMessagesApi, userText, type StandIn } from '../helpers/messages-api.js';
import { needTool } from '../helpers/tools.js';

const LINES = [
  'The first thing I checked was the failing login test.',
  'It failed because the session cookie expired a second too early.',
  'I moved the expiry to the server clock, and the test passes now.',
  'That is everything for this task.',
];

interface Logged {
  msg: string;
  source?: string;
  status: string;
  message: string;
  session: string;
  narrates?: boolean;
  reason?: string;
}

/** voxd's log lines of narration: batches (`narration`) and declarations (`narration session`). */
function logged(d: Daemon, msg: 'narration' | 'narration session'): Logged[] {
  const log = join(d.home, 'logs', 'voxd.log');
  return (existsSync(log) ? readFileSync(log, 'utf8') : '')
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`))
    .map((l) => JSON.parse(l) as Logged);
}

interface Session {
  d: Daemon;
  api: StandIn;
  home: string;
  cc: InteractiveClaude;
}

/** The describe's session: started before its tests, ended after them. */
function useSession(name: string, config: string): Session {
  const s = {} as Session;
  before(async () => {
    Object.assign(s, await startSession(name, config));
  });
  after(async () => {
    await s.cc?.close();
    await s.api?.close();
    await s.d?.stop();
    if (s.d) removeDir(s.d.home);
    if (s.home) removeDir(s.home);
  });
  return s;
}

/** Claude Code in tmux on `project`, with the stand-in model writing LINES to a prompt that says NARRATE. */
async function startSession(name: string, config: string): Promise<Session> {
  const d = await startDaemon();
  const api = await startMessagesApi((req) =>
    req.tools?.length && userText(lastUser(req)).includes('NARRATE')
      ? { text: `${LINES.join('\n')}\n`, lineDelayMs: 300 }
      : { text: 'ok' },
  );
  const home = tempDir(`vox-claude-${name}-`);
  const project = join(home, 'web');
  writeConfig(project, config);
  const cc = await startInteractiveClaude({
    home,
    project,
    env: offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url }),
    args: ['--plugin-dir', join(ROOT, 'plugin'), '--permission-mode', 'default'],
    name,
  });
  return { d, api, home, cc };
}

describe("the mod's narration with MessageDisplay beside it, in tmux", { skip: pinnedSkip || needTool('tmux') }, () => {
  const session = useSession('mod-narr', 'narrate: stream');

  test('a streamed reply is spoken once, in order, from one path; the other saw it too and was dropped', async () => {
    const { d, cc } = session;
    cc.type('NARRATE the login fix');
    const narrated = () => logged(d, 'narration');
    const taken = (b: { status: string }) => b.status !== 'dropped';
    // Both paths sent the reply: one path's batches taken, the other's dropped.
    const owner = await waitFor(
      () => {
        const n = narrated();
        const mod = n.filter((b) => b.source === 'mod');
        const mcp = n.filter((b) => b.source === undefined);
        if (mod.some(taken) && mcp.length && !mcp.some(taken)) return 'mod';
        if (mcp.some(taken) && mod.length && !mod.some(taken)) return 'mcp';
        return undefined;
      },
      60_000,
      'batches from both paths',
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; voxd's narration log:\n${JSON.stringify(narrated(), null, 1)}\nscreen:\n${cc.pane()}`,
      );
    });
    const spoken = await waitFor(
      async () => {
        const h = ((await d.api('GET', '/v1/status')).body.history as Array<{ text: string; outcome: string }>).filter(
          (e) => e.text.includes('login test') || e.text.includes('everything for this task'),
        );
        return h.length && h.every((e) => e.outcome === 'played') && h.some((e) => e.text.includes('everything'))
          ? h
          : undefined;
      },
      60_000,
      'the reply to be spoken',
    ).catch(async (e: Error) => {
      const history = (await d.api('GET', '/v1/status')).body.history as unknown;
      throw new Error(
        `${e.message} (${owner} narrated); history:\n${JSON.stringify(history, null, 1)}\nnarration log:\n${JSON.stringify(narrated(), null, 1)}`,
      );
    });
    const all = spoken.map((e) => e.text).join(' ');
    for (const line of LINES) assert.equal(all.split(line).length - 1, 1, `"${line}" spoken once (heard: ${all})`);
    assert.ok(
      LINES.map((l) => all.indexOf(l)).every((at, i, a) => i === 0 || at > a[i - 1]!),
      `in order: ${all}`,
    );
    const other = owner === 'mod' ? undefined : 'mod';
    assert.ok(
      narrated().every((b) => b.source !== other || !taken(b)),
      `nothing was taken from the other path (${owner} narrated)`,
    );
    console.log(`# the turn was narrated from ${owner === 'mod' ? 'the mod' : 'vox mcp'}`);
    const declared = logged(d, 'narration session');
    assert.ok(
      declared.some((l) => l.narrates === true && l.session.startsWith('web#')),
      `vox mcp declared the session narrating: ${JSON.stringify(declared)}`,
    );
  });
});

describe('the mod in a project that does not narrate, in tmux', { skip: pinnedSkip || needTool('tmux') }, () => {
  const session = useSession('mod-summ', 'narrate: summary');

  test("the mod's batches are dropped with the config's words in voxd's log; the summary is said once, at Stop", async () => {
    const { d, cc } = session;
    cc.type('NARRATE the login fix');
    const mod = await waitFor(
      () => {
        const m = logged(d, 'narration').filter((b) => b.source === 'mod');
        return m.length ? m : undefined;
      },
      60_000,
      "the mod's batch",
    ).catch((e: Error) => {
      throw new Error(`${e.message}; voxd's log:\n${JSON.stringify(logged(d, 'narration'))}\nscreen:\n${cc.pane()}`);
    });
    for (const b of mod) {
      assert.equal(b.status, 'dropped', JSON.stringify(b));
      assert.match(b.reason ?? '', /does not narrate \(narrate: summary\)/, JSON.stringify(b));
    }
    const declared = logged(d, 'narration session');
    assert.ok(
      declared.some((l) => l.narrates === false && l.reason === 'narrate: summary'),
      `vox mcp declared the session not narrating: ${JSON.stringify(declared)}`,
    );
    // The turn ends as a summary project's does: its first sentences, once, from the Stop hook.
    const spoken = await waitFor(
      async () => {
        const h = ((await d.api('GET', '/v1/status')).body.history as Array<{ text: string; outcome: string }>).filter(
          (e) => e.text.includes('login test'),
        );
        return h.length && h.every((e) => e.outcome === 'played') ? h : undefined;
      },
      60_000,
      'the Stop summary to be spoken',
    );
    assert.equal(spoken.length, 1, `one utterance of the reply: ${JSON.stringify(spoken)}`);
    assert.ok(!spoken[0]!.text.includes('everything for this task'), `a summary, not the reply: ${spoken[0]!.text}`);
    assert.ok(
      logged(d, 'narration').every((b) => b.status === 'dropped'),
      `nothing narrated: ${JSON.stringify(logged(d, 'narration'))}`,
    );
    console.log(`# the mod sent ${mod.length} batch(es) of the turn before voxd's untilCut stopped it`);
  });
});
