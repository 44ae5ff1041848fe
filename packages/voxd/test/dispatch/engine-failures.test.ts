/**
 * A failing engine never takes the queue down: each way of failing ends the
 * utterance as `failed` with the reason, and the next request still plays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Dispatcher } from '../../src/dispatch/dispatcher.js';
import type { Engine } from '../../src/engines/engine.js';
import { singleEngine } from '../../src/server.js';
import { NullSink } from '../../src/sinks/null.js';
import { rmSync } from 'node:fs';
import {
  CrashingEngine,
  DyingEngine,
  dyingEspeakNg,
  HangingEngine,
  SilentEngine,
} from '../fixtures/failing-engines.js';

function rig(engine: Engine, synthesisTimeoutMs = 30_000) {
  return new Dispatcher({ synthesizer: singleEngine(engine), sink: new NullSink(), synthesisTimeoutMs });
}

async function outcome(d: Dispatcher, text: string) {
  const { settled } = await d.speak({ text });
  return settled;
}

test('an engine that crashes fails that utterance; the next one plays', async () => {
  const d = rig(new CrashingEngine());
  const first = await outcome(d, 'First.');
  assert.equal(first.status, 'failed');
  assert.equal(first.error?.code, 'VOX_ERR_SYNTHESIS_FAILED');
  assert.match(first.reason ?? '', /engine crashed/);
  assert.equal((await outcome(d, 'Second.')).status, 'played');
});

test('an engine that hangs and ignores its signal is failed by the watchdog; the queue moves on', async () => {
  const d = rig(new HangingEngine(), 200);
  const [first, second] = await Promise.all([outcome(d, 'Hangs.'), outcome(d, 'Plays after the hang.')]);
  assert.equal(first.status, 'failed');
  assert.match(first.reason ?? '', /produced no audio for/);
  assert.equal(second.status, 'played');
});

test('a hung engine can still be stopped at once', async () => {
  const d = rig(new HangingEngine(), 60_000);
  const { settled } = await d.speak({ text: 'Hangs until stopped.' });
  await new Promise((r) => setTimeout(r, 50));
  const [stopped, r] = await Promise.all([d.stop('all'), settled]);
  assert.equal(r.status, 'stopped');
  assert.equal(stopped.length, 1, 'the stop names the request it cut');
});

test('an engine that exits early with no audio is a failure, not a silent "played"', async () => {
  const d = rig(new SilentEngine());
  const r = await outcome(d, 'Nothing comes out.');
  assert.equal(r.status, 'failed');
  assert.match(r.reason ?? '', /produced no audio/);
});

test('an engine that dies mid-stream fails the utterance with its error', async () => {
  const d = rig(new DyingEngine());
  const r = await outcome(d, 'Dies halfway.');
  assert.equal(r.status, 'failed');
  assert.match(r.reason ?? '', /died mid-sentence/);
  assert.equal(d.counters.failed, 1);
});

test('an engine process that dies mid-stream fails the utterance as a synthesis failure, not a playback one', async (t) => {
  const { engine, dir } = dyingEspeakNg();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const d = rig(engine);
  const r = await outcome(d, 'Dies halfway.');
  assert.equal(r.status, 'failed');
  assert.equal(r.reason, 'espeak-ng exited with code 3: fake espeak-ng died');
  // Before engines threw catalogue errors this was VOX_ERR_PLAYBACK_FAILED: the speaker was blamed for the engine.
  assert.equal(r.error?.code, 'VOX_ERR_SYNTHESIS_FAILED');
});
