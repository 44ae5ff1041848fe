/**
 * What vox mcp learns of Claude Code's channel gate (mcp/channel-gate.ts):
 * the channel lists of a command line, and the verdict for each case Claude
 * Code 2.1.332 drops a channel message in that vox can see.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedFlags, channelEntries, channelGate, commandLineOf } from '../../src/mcp/channel-gate.js';

const CLAUDE = '/opt/claude-code/claude';
const on = { tengu_harbor: true };

test('channel lists: space separated, after =, with commas; none when no flag', () => {
  assert.deepEqual(channelEntries([CLAUDE, '--channels', 'plugin:vox@vox', 'server:x', '--debug']), [
    'plugin:vox@vox',
    'server:x',
  ]);
  assert.deepEqual(channelEntries([CLAUDE, '--dangerously-load-development-channels=server:vox,server:y']), [
    'server:vox',
    'server:y',
  ]);
  assert.equal(channelEntries([CLAUDE, '--debug']), undefined);
});

test('open only when the session lists vox, is interactive and the cached flag is on', () => {
  const gate = (argv: string[] | undefined, fromPlugin = false, flags: Record<string, unknown> | undefined = on) =>
    channelGate({ argv, fromPlugin, flags });
  assert.deepEqual(gate([CLAUDE, '--dangerously-load-development-channels', 'server:vox']), {
    open: true,
    reason: 'the session was started with server:vox in its channel list',
  });
  assert.equal(gate([CLAUDE, '--channels', 'plugin:vox@vox'], true).open, true);
  assert.match(gate([CLAUDE]).reason, /started without --channels/);
  assert.match(gate([CLAUDE, '--channels', 'plugin:other@m'], true).reason, /does not name plugin:vox@/);
  assert.match(gate([CLAUDE, '--channels', 'server:vox', '-p', 'hi']).reason, /claude -p run/);
  assert.match(gate([CLAUDE, '--channels', 'server:vox'], false, {}).reason, /research preview is off/);
  assert.match(gate(['/usr/bin/node', 'server.js']).reason, /cannot read its Claude Code's command line/);
  assert.match(gate(undefined).reason, /cannot read/);
  for (const g of [gate([CLAUDE]), gate(undefined), gate(['/usr/bin/node', 'server.js'])]) assert.equal(g.open, false);
  // No flag cache read: nothing to say about the preview.
  assert.equal(gate([CLAUDE, '--channels', 'server:vox'], false, undefined).open, true);
});

test("this process's command line, and Claude Code's cached flags (a broken config is no flags)", (t) => {
  if (process.platform === 'linux') {
    const argv = commandLineOf(process.pid);
    assert.ok(
      argv?.some((w) => w.endsWith('channel-gate.test.ts')),
      JSON.stringify(argv),
    );
  }
  const home = mkdtempSync(join(tmpdir(), 'vox-gate-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  assert.equal(cachedFlags({ HOME: home }), undefined);
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ cachedGrowthBookFeatures: on }));
  assert.deepEqual(cachedFlags({ HOME: home }), on);
  writeFileSync(join(home, '.claude.json'), '{not json');
  assert.equal(cachedFlags({ HOME: home }), undefined);
});
