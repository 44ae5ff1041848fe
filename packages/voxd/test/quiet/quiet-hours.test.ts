/**
 * Quiet hours (quiet/quiet-hours.ts) on the quiet gate (quiet/gate.ts): inside
 * the window the gate holds, with the window named; the next edge is where the
 * window starts or ends; closing opens the gate.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QuietGate } from '../../src/quiet/gate.js';
import { inQuietHours, msToNextEdge, QuietHours } from '../../src/quiet/quiet-hours.js';

const at = (h: number, m: number) => new Date(2026, 11, 6, h, m, 0, 0);
const night = { start: 22 * 60, end: 7 * 60 };

describe('quiet hours', () => {
  test('a window across midnight holds from its start to its end, local time', () => {
    assert.equal(inQuietHours(night, at(23, 30)), true);
    assert.equal(inQuietHours(night, at(3, 0)), true);
    assert.equal(inQuietHours(night, at(7, 0)), false);
    assert.equal(inQuietHours(night, at(21, 59)), false);
    assert.equal(inQuietHours({ start: 12 * 60, end: 13 * 60 }, at(12, 30)), true);
    assert.equal(inQuietHours({ start: 12 * 60, end: 13 * 60 }, at(13, 30)), false);
  });

  test('the next edge is the nearer of the start and the end', () => {
    assert.equal(msToNextEdge(night, at(21, 0)), 60 * 60_000);
    assert.equal(msToNextEdge(night, at(6, 30)), 30 * 60_000);
  });

  test('inside the window the gate holds, naming it; closing opens it', () => {
    const gate = new QuietGate();
    const changes: boolean[] = [];
    gate.on('change', (held) => changes.push(held));
    const hours = new QuietHours('22:00-07:00', gate, () => at(23, 0).getTime());
    assert.deepEqual(gate.reasons(), [{ reason: 'quiet-hours', detail: 'quiet hours (22:00-07:00)' }]);
    hours.close();
    assert.equal(gate.held, false);
    assert.deepEqual(changes, [true, false]);
    new QuietHours('22:00-07:00', gate, () => at(12, 0).getTime()).close();
    assert.deepEqual(changes, [true, false], 'outside the window: never held');
  });

  test('reasons stand alone: the gate opens when the last one ends; an ask is chimed once per hold', () => {
    const gate = new QuietGate();
    const ask = {};
    gate.set('paused', 'paused');
    gate.set('microphone', 'in use');
    assert.equal(gate.firstSight(ask), true);
    assert.equal(gate.firstSight(ask), false);
    gate.set('paused', false);
    assert.equal(gate.held, true);
    gate.set('microphone', false);
    assert.equal(gate.held, false);
    gate.set('paused', 'paused');
    assert.equal(gate.firstSight(ask), true, 'a new hold chimes it again');
  });
});
