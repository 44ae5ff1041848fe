/**
 * The idle trim (idle-trim.ts): once the loop has been idle for a period and
 * the heap grew, one memory-reducing collection gives the slack back.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { startIdleTrim } from '../../src/util/idle-trim.js';

const committed = () => v8.getHeapSpaceStatistics().reduce((n, s) => n + s.physical_space_size, 0);

describe('idle trim', () => {
  test('an idle loop after a burst of garbage gets its heap back; a busy one is left alone', async () => {
    // A burst: 40 MB of short-lived garbage grows the young and old generations.
    let keep: unknown[] = [];
    for (let i = 0; i < 40; i++) keep.push(Array.from({ length: 25_000 }, (_, j) => ({ i, j, s: `x${j}` })));
    keep = [];
    const grown = committed();
    const trim = startIdleTrim({ checkMs: 200 });
    try {
      // Busy: the loop is kept at work for two periods, so no trim may run.
      const until = performance.now() + 450;
      while (performance.now() < until) for (let k = 0; k < 1e5; k++) keep.length = 0;
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(trim.trims, 0, 'no trim while busy');
      for (let i = 0; i < 50 && trim.trims === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(trim.trims >= 1, 'a trim ran once idle');
      const after = committed();
      assert.ok(
        after < grown,
        `heap committed ${(grown / 1048576).toFixed(1)} MB -> ${(after / 1048576).toFixed(1)} MB`,
      );
    } finally {
      trim.stop();
    }
  });

  test('a process that says when it is idle (vox mcp) is trimmed only then, without perf_hooks', async () => {
    let keep: unknown[] = [];
    for (let i = 0; i < 20; i++) keep.push(Array.from({ length: 25_000 }, (_, j) => ({ i, j, s: `x${j}` })));
    keep = [];
    let quiet = false;
    let asked = 0;
    const trim = startIdleTrim({
      checkMs: 50,
      idle: () => {
        asked++;
        return quiet;
      },
    });
    try {
      while (asked < 3) await new Promise((r) => setTimeout(r, 50));
      assert.equal(trim.trims, 0, 'no trim while it says it is busy');
      quiet = true;
      for (let i = 0; i < 100 && trim.trims === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(trim.trims >= 1, 'a trim once it says it is idle');
    } finally {
      trim.stop();
    }
  });
});
