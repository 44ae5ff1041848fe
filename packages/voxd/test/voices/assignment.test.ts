import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESPEAK_POOL, VoiceAssignment } from '../../src/voices/assignment.js';
import { EspeakEngine } from '../../src/engines/espeak.js';
import { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { singleEngine } from '../../src/server.js';
import { NullSink } from '../../src/sinks/null.js';

const POOL = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms = 1) => (now += ms) };
}

test('eight sessions get eight distinct voices, and each keeps its own', () => {
  const c = clock();
  const v = new VoiceAssignment({ clock: c.now });
  const first = Array.from({ length: 8 }, (_, i) => (c.advance(), v.assign(`s${i}`, 'espeak', POOL)));
  assert.equal(new Set(first).size, 8);
  const again = Array.from({ length: 8 }, (_, i) => (c.advance(), v.assign(`s${7 - i}`, 'espeak', POOL))).reverse();
  assert.deepEqual(again, first);
});

test('each engine has its own assignment; an empty pool assigns nothing', () => {
  const v = new VoiceAssignment();
  assert.equal(v.assign('s', 'espeak', ['x', 'y']), 'x');
  assert.equal(v.assign('s', 'sherpa', ['m:0', 'm:1']), 'm:0');
  assert.equal(v.assign('s', 'openai', []), undefined);
  assert.equal(v.list().length, 2);
});

test('more sessions than voices: the least recently used session gives its voice up', () => {
  const c = clock();
  const v = new VoiceAssignment({ clock: c.now });
  const pool = ['a', 'b', 'c'];
  for (const s of ['s1', 's2', 's3']) (c.advance(), v.assign(s, 'e', pool));
  c.advance();
  v.assign('s1', 'e', pool); // s1 speaks again: s2 is now the least recently used
  c.advance();
  assert.equal(v.assign('s4', 'e', pool), 'b', "s4 takes s2's voice");
  assert.deepEqual(
    v.list().map((e) => e.session),
    ['s4', 's1', 's3'],
  );
  c.advance();
  assert.equal(v.assign('s2', 'e', pool), 'c', 's2 comes back and takes the least recently used voice (s3)');
});

test('a voice gone from the pool is replaced', () => {
  const v = new VoiceAssignment();
  assert.equal(v.assign('s', 'e', ['a', 'b']), 'a');
  assert.equal(v.assign('s', 'e', ['b']), 'b');
});

test('the assignment is kept across a restart, bounded, and a hostile file is survived', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vox-voices-'));
  try {
    const path = join(dir, 'session-voices.json');
    const c = clock();
    const one = new VoiceAssignment({ path, clock: c.now, maxSessions: 5 });
    for (let i = 0; i < 8; i++) (c.advance(), one.assign(`s${i}`, 'e', POOL));
    assert.equal(one.list().length, 5, 'bounded');
    const two = new VoiceAssignment({ path, clock: c.now, maxSessions: 5 });
    assert.deepEqual(two.list(), one.list());
    assert.equal(two.assign('s7', 'e', POOL), one.list()[0]!.voice);
    c.advance(10_000);
    two.assign('s3', 'e', POOL); // a use alone, 10 s after the last save: the order of use is saved too
    assert.equal(new VoiceAssignment({ path, clock: c.now, maxSessions: 5 }).list()[0]!.session, 's3');

    const warnings: string[] = [];
    const log = { warn: (_o: object, msg?: string) => void warnings.push(msg ?? '') };
    writeFileSync(path, 'not json');
    assert.deepEqual(new VoiceAssignment({ path, log }).list(), []);
    writeFileSync(
      path,
      JSON.stringify({
        sessions: [{ session: 1 }, { session: 's', engine: 'e', voice: 'x'.repeat(500), lastUsed: 1 }, null],
      }),
    );
    assert.deepEqual(new VoiceAssignment({ path, log }).list(), [], 'malformed entries are skipped');
    writeFileSync(path, 'x'.repeat(200_000));
    assert.deepEqual(new VoiceAssignment({ path, log }).list(), [], 'a huge file is not read');
    rmSync(path);
    mkdirSync(path);
    const three = new VoiceAssignment({ path, log });
    assert.equal(three.assign('s', 'e', POOL), 'a', 'a directory in its place does not fail the request');
    assert.ok(
      warnings.some((w) => /moved it/.test(w)),
      warnings.join('; '),
    );
    assert.match(readFileSync(path, 'utf8'), /"session":"s"/, 'the directory was moved aside and the file written');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("eSpeak's pool is variants of its default voice, all known to the embedded engine", async () => {
  const engine = new EspeakEngine();
  try {
    const v = new VoiceAssignment();
    const pool = await v.pool(engine);
    assert.ok(pool.length >= 8, `pool: ${pool.join(', ')}`);
    assert.deepEqual(
      pool,
      ESPEAK_POOL.filter((x) => pool.includes(x)),
    );
  } finally {
    await engine.close();
  }
});

test('admission: a request with a session and no voice gets its own; one that names a voice keeps it; one without a session gets none', async () => {
  const engine = new EspeakEngine();
  const d = new Dispatcher({ synthesizer: singleEngine(engine), sink: new NullSink(), voices: new VoiceAssignment() });
  try {
    const a = await d.speak({ text: 'One.', session: 'shop#a' });
    const b = await d.speak({ text: 'Two.', session: 'shop#b' });
    const pinned = await d.speak({ text: 'Three.', session: 'shop#c', voice: 'en-gb' });
    const none = await d.speak({ text: 'Four.' });
    await Promise.all([a.settled, b.settled, pinned.settled, none.settled]);
    const byText = new Map(d.history().map((h) => [h.text, h.voice]));
    assert.equal(byText.get('One.'), 'en-us');
    assert.equal(byText.get('Two.'), ESPEAK_POOL[1]);
    assert.equal(byText.get('Three.'), 'en-gb', 'the voice the request names wins (a project voice key)');
    assert.equal(byText.get('Four.'), undefined);
    assert.deepEqual(
      d.sessionVoices().map((v) => v.session),
      ['shop#b', 'shop#a'],
    );
  } finally {
    await d.close();
    await engine.close();
  }
});
