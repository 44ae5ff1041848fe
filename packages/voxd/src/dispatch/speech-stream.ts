/**
 * The speech stream: one stream of audio for a whole utterance, sentence
 * i+1 synthesized while sentence i plays, so nothing else lands between its
 * sentences. A watchdog fails the utterance when the engine yields nothing
 * for `timeoutMs` (a hung engine must not stall the queue for everyone), and
 * each chunk races the watchdog and a stop, so an engine that ignores its
 * abort signal can neither stall the queue nor delay a stop.
 */
import { chimePcm, CHIME_FORMAT } from '../audio/chimes.js';
import { applyGain, resample, type AudioFormat } from '../audio/pcm.js';
import type { Engine } from '../engines/engine.js';
import { VoxError } from '../errors.js';
import type { Synthesizer } from '../synthesis/synthesizer.js';
import type { UtteranceJournal } from './utterance-journal.js';
import { pick, type Utterance } from './utterance.js';

export interface Audio {
  format: AudioFormat;
  chunks: AsyncIterable<Buffer>;
}

export interface SpeechStreamOptions {
  synthesizer: Synthesizer;
  /** Fail when the engine yields no audio for this long, in ms. */
  timeoutMs: number;
  /** Where each sentence's start is recorded (for an utterance in the journal). */
  journal: UtteranceJournal;
  /**
   * Asked before each sentence after the first of a pass, with the ms of
   * audio the turn played (this pass, and the passes of the turn before a
   * pause: `Utterance.turnMs`): true ends the pass there (a narration's turn is
   * over and others wait), and the utterance's `current` is that sentence.
   */
  endTurn?: (u: Utterance, audioMs: number) => boolean;
}

const STOPPED = Symbol('stopped');

/** The utterance's audio from its current sentence on; resolves once the first sentence has audio. */
export async function speechAudio(u: Utterance, signal: AbortSignal, options: SpeechStreamOptions): Promise<Audio> {
  const { synthesizer, timeoutMs, journal, endTurn } = options;
  const watchdog = new AbortController();
  const synthSignal = AbortSignal.any([signal, watchdog.signal]);
  const stalled = () =>
    new VoxError('VOX_ERR_SYNTHESIS_FAILED', {
      message: `the ${u.engine ?? 'speech'} engine produced no audio for ${Math.round(timeoutMs / 1000)} s`,
    });
  let timer: NodeJS.Timeout | undefined;
  let onStall: ((err: Error) => void) | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      watchdog.abort();
      onStall?.(stalled());
    }, timeoutMs);
  };
  const disarm = () => clearTimeout(timer);
  signal.addEventListener('abort', disarm, { once: true });
  // Rejects when the watchdog fires, so a hung first chunk does not hang the player.
  const stall = new Promise<never>((_, reject) => (onStall = reject));
  stall.catch(() => {});
  const stopped = new Promise<typeof STOPPED>((resolve) => {
    if (signal.aborted) resolve(STOPPED);
    else signal.addEventListener('abort', () => resolve(STOPPED), { once: true });
  });
  const synthesize = (engine: Engine, i: number) =>
    synthesizer.synthesize({
      text: u.sentences[i]!,
      engine,
      ...pick(u, ['voice', 'rate', 'model', 'apiKey', 'cacheOnly']),
      signal: synthSignal,
      leading: i === first,
    });
  // Chosen at admission; a replayed utterance has only the engine's name, resolved once here.
  const start = (i: number) =>
    Promise.race([
      u.resolved
        ? synthesize(u.resolved, i)
        : synthesizer.resolve(u.engine, u.voice).then((e) => synthesize(u.useEngine(e), i)),
      stall,
    ]).catch((err: Error) => {
      throw new VoxError('VOX_ERR_SYNTHESIS_FAILED', { message: err.message });
    });
  const first = u.current;
  arm();
  let pending = start(first);
  // The sentence `pending` renders: a narration's next sentence may arrive while one plays.
  let pendingFor = first;
  let head: Awaited<ReturnType<Synthesizer['synthesize']>>;
  try {
    head = await pending;
  } catch (err) {
    disarm();
    throw err;
  }
  u.spokenBy(head.engine, head.fallbackReason);
  const format = head.synthesis.format;
  const gain = u.volume ?? 1;
  const bytesPerMs = (format.sampleRate * 2) / 1000;
  async function* chunks(): AsyncGenerator<Buffer> {
    let cur = head;
    let played = 0;
    // What the turn had played before this pass (a pass resumed after a pause), so the turn is not begun again.
    const before = u.turnMs;
    try {
      for (let i = first; i < u.sentences.length; i++) {
        if (i > first && endTurn?.(u, before + played / bytesPerMs)) {
          u.reach(i);
          journal.progress(u);
          return;
        }
        u.reach(i);
        // One small write per sentence, no sync: where a restart resumes.
        journal.progress(u);
        if (i > first) {
          if (pendingFor !== i) {
            pending = start(i);
            pendingFor = i;
          }
          const r = await Promise.race([pending, stopped]);
          if (r === STOPPED) return;
          cur = r;
        }
        if (i + 1 < u.sentences.length) {
          pending = start(i + 1);
          pendingFor = i + 1;
          pending.catch(() => {}); // surfaced when awaited
        }
        if (i > first) u.spokenBy(cur.engine, cur.fallbackReason);
        const it = cur.synthesis.chunks[Symbol.asyncIterator]();
        for (;;) {
          const next = await Promise.race([it.next(), stall, stopped]);
          if (next === STOPPED || signal.aborted) {
            void it.return?.();
            return;
          }
          if (next.done) break;
          const chunk = next.value;
          arm();
          const c =
            cur.synthesis.format.sampleRate === format.sampleRate
              ? chunk
              : resample(chunk, cur.synthesis.format.sampleRate, format.sampleRate);
          played += c.length;
          yield gain < 1 ? applyGain(Buffer.from(c), gain) : c;
        }
        if (watchdog.signal.aborted && !signal.aborted) throw stalled();
      }
      if (u.narration && !signal.aborted) {
        // Played all it has: the next pass starts at the first sentence still to come.
        u.reach(u.sentences.length);
        journal.progress(u);
      }
    } finally {
      u.spent(played / bytesPerMs);
      disarm();
    }
  }
  return { format, chunks: chunks() };
}

/** A chime's audio: one chunk. */
export function chimeAudio(u: Utterance): Audio {
  const pcm = chimePcm(u.signal!, u.volume ?? 0.5);
  return {
    format: CHIME_FORMAT,
    chunks: (async function* () {
      yield pcm;
    })(),
  };
}
