/**
 * The voice barge-in monitor alone: a stand-in dispatcher (its events, its
 * `playing` and `cut`), the real recorder shim as the microphone and the
 * energy VAD. The e2e test (test/voice/voice-barge-in.e2e.test.ts) runs it in voxd.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VoiceBargeIn, VOICE_BARGE_IN_ID } from '../../src/listen/voice-barge-in.js';
import { EnergyEndPointer } from '../../src/listen/vad.js';
import { RECORDER_SHIM } from '../../../../test/helpers/recorder-shim.js';
import { isRunning, waitFor } from '../../../../test/helpers/daemon.js';

const dir = mkdtempSync(join(tmpdir(), 'vox-voice-barge-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What the monitor asks of the dispatcher: an utterance plays until `end()` or a cut. */
class StandIn extends EventEmitter {
  playing: { id: string; kind: 'speech' | 'chime'; ended: Promise<void> } | null = null;
  cuts: string[] = [];
  #end: (() => void) | undefined;
  play(id: string, kind: 'speech' | 'chime' = 'speech'): void {
    this.playing = { id, kind, ended: new Promise((r) => (this.#end = r)) };
    this.emit('event', { type: 'started', id });
  }
  end(): void {
    this.playing = null;
    this.#end?.();
  }
  async cut(detail: string): Promise<string | undefined> {
    const id = this.playing?.id;
    this.cuts.push(detail);
    this.end();
    return id;
  }
}

function monitor(mic: object, busy = false) {
  const control = join(dir, `mic-${Math.random().toString(36).slice(2)}.json`);
  const pidfile = `${control}.pid`;
  writeFileSync(control, JSON.stringify(mic));
  const d = new StandIn();
  const m = new VoiceBargeIn({
    dispatcher: d as never,
    recorder: RECORDER_SHIM,
    vad: (o) => new EnergyEndPointer(o),
    micBusy: () => busy,
    env: { ...process.env, NODE_OPTIONS: '', VOX_TEST_MIC_CONTROL: control, VOX_TEST_MIC_PIDFILE: pidfile },
  });
  return { d, m, pidfile };
}

/** The pid the shim wrote once it started. */
function pidOf(file: string): Promise<number> {
  return waitFor(
    () => {
      try {
        return Number(readFileSync(file, 'utf8').split(' ')[0]) || undefined;
      } catch {
        return undefined;
      }
    },
    10_000,
    'the recorder to start',
  );
}

describe('voice barge-in', () => {
  test('speech opens the microphone (status says so), silence does not cut, and it closes when nothing plays', async () => {
    const { d, m, pidfile } = monitor({ leadMs: 60_000 });
    try {
      d.play('u1');
      await waitFor(() => m.open || undefined, 10_000, 'the microphone to open');
      assert.deepEqual(m.status, { id: VOICE_BARGE_IN_ID, open: true });
      const pid = await pidOf(pidfile);
      await new Promise((r) => setTimeout(r, 600));
      assert.deepEqual(d.cuts, []);
      d.end();
      await waitFor(() => (isRunning(pid) ? undefined : true), 5000, 'the recorder to stop');
      assert.equal(m.open, false);
      assert.equal(m.status, null);
    } finally {
      await m.close();
    }
  });

  test("the user's voice cuts the utterance once", async () => {
    const { d, m, pidfile } = monitor({ leadMs: 200 });
    try {
      d.play('u2');
      await waitFor(() => (d.cuts.length ? true : undefined), 10_000, 'the cut');
      assert.deepEqual(d.cuts, ['cut by the user speaking (voice barge-in)']);
      assert.equal(m.cuts, 1);
      const pid = await pidOf(pidfile);
      await waitFor(() => (isRunning(pid) ? undefined : true), 5000, 'the recorder to stop after the cut');
    } finally {
      await m.close();
    }
  });

  test('a chime, or a listen holding the microphone, opens nothing; close() is final', async () => {
    const chime = monitor({ leadMs: 0 });
    const busy = monitor({ leadMs: 0 }, true);
    try {
      chime.d.play('c1', 'chime');
      busy.d.play('u3');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(chime.m.open, false);
      assert.equal(busy.m.open, false);
      await chime.m.close();
      chime.d.end();
      chime.d.play('u4');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(chime.m.open, false, 'closed: nothing opens');
      assert.deepEqual([...chime.d.cuts, ...busy.d.cuts], []);
    } finally {
      await chime.m.close();
      await busy.m.close();
    }
  });
});
