/**
 * The vox mod's narration from `turn.step` in the real Claude Code,
 * interactive in tmux, offline against the stand-in Messages API (a line
 * every 300 ms, as a model writes), with MessageDisplay active as well (the
 * plugin from this checkout, `narrate: stream`) and VOX_CLAUDE_MOD_NARRATION=on:
 * both paths send the reply to voxd, and each sentence is spoken once, in
 * order, from whichever path sent first (usually the mod, which sees the
 * text as it streams; on a loaded machine MessageDisplay may be first); the
 * other path's batches are dropped, with why.
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

describe("the mod's narration with MessageDisplay beside it, in tmux", { skip: pinnedSkip || needTool('tmux') }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let cc: InteractiveClaude;

  before(async () => {
    d = await startDaemon();
    api = await startMessagesApi((req) =>
      req.tools?.length && userText(lastUser(req)).includes('NARRATE')
        ? { text: `${LINES.join('\n')}\n`, lineDelayMs: 300 }
        : { text: 'ok' },
    );
    home = tempDir('vox-claude-mod-narr-');
    const project = join(home, 'web');
    writeConfig(project, 'narrate: stream');
    cc = await startInteractiveClaude({
      home,
      project,
      env: { ...offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url }), VOX_CLAUDE_MOD_NARRATION: 'on' },
      args: ['--plugin-dir', join(ROOT, 'plugin'), '--permission-mode', 'default'],
      name: 'mod-narr',
    });
  });
  after(async () => {
    await cc?.close();
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('a streamed reply is spoken once, in order, from one path; the other saw it too and was dropped', async () => {
    cc.type('NARRATE the login fix');
    const log = join(d.home, 'logs', 'voxd.log');
    const narrated = () =>
      (existsSync(log) ? readFileSync(log, 'utf8') : '')
        .split('\n')
        .filter((l) => l.includes('"msg":"narration"'))
        .map((l) => JSON.parse(l) as { source?: string; status: string; message: string });
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
    );
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
  });
});
