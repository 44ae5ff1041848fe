/**
 * The audio specs @vox/protocol's settings accept are the ones voxd builds:
 * every accepted spec makes a sink, and the player lists are one list.
 * Here, not in packages/protocol/test: it reaches into voxd's source.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIO_PLAYERS, AUDIO_SINK_KINDS, audioSpecProblem } from '@vox/protocol/settings';
import { PLAYERS } from '../../packages/voxd/src/sinks/command.js';
import { createSink } from '../../packages/voxd/src/sinks/create.js';

test('createSink accepts every spec the settings accept, and the players are the same list', (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'vox-audio-specs-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const ok = [
    'auto',
    'audioio',
    'speaker',
    'null',
    'command',
    'command:aplay',
    `file:${tmp}`,
    `file:${tmp}?realtime=0`,
  ];
  for (const spec of ok) {
    assert.equal(audioSpecProblem(spec), undefined, spec);
    createSink(spec);
  }
  for (const kind of AUDIO_SINK_KINDS)
    assert.ok(
      ok.some((s) => s.split(':')[0] === kind),
      kind,
    );
  assert.deepEqual([...AUDIO_PLAYERS], [...PLAYERS], "protocol's players are voxd's");
});
