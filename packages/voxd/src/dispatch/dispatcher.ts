/**
 * The dispatcher: accepts requests, filters duplicates, applies the priority
 * rules, and plays one utterance at a time through the sink. Every accepted
 * request ends in exactly one outcome (played, deduped, failed, expired,
 * interrupted, replaced, dropped, stopped) that is recorded in the history,
 * emitted as an event and returned to a caller that waits. Nothing is lost.
 *
 * An utterance is a unit: its sentences are synthesized one ahead of playback
 * and streamed to the sink as one stream, so no other request lands between
 * them unless it outranks it (queue.ts). An interrupted `message` or `text`
 * resumes later from the sentence that was cut, announced by a second
 * `started` event. A stop that lands between the cut and the requeue wins
 * over the resume. The rules in full: docs/priorities.md.
 *
 * With a journal (journal.ts), every accepted request is on disk before the
 * caller hears "queued", sentence starts and outcomes are recorded, and a
 * restarted voxd replays what had not settled (restore()): same ids, order,
 * priorities and sessions, resuming a cut utterance at its sentence. A
 * re-send with the same `requestId` is joined to the request it repeats.
 * On shutdown, queued speech is handed over to the next voxd; callers that wait are cut off to re-send there.
 *
 * This class wires the parts: admission.ts (what is taken, and how), player.ts (the loop, cuts, holds),
 * speech-stream.ts (an utterance's audio), ledger.ts (outcomes, history, counters, re-sends), replay.ts and
 * attention.ts (the focus, and what other sessions may say); utterance.ts owns each utterance's states,
 * and utterance-journal.ts is the only writer of their records in the journal.
 */
import { EventEmitter } from 'node:events';
import type {
  ChimeSignal,
  HistoryEntry,
  NarrationRequest,
  NarrationResponse,
  NarrationSessionRequest,
  Priority,
  SessionVoice,
  SpeakResponse,
  StopScope,
  VoxEvent,
} from '@vox/protocol';
import { prepareAsGiven, type PrepareFn } from '../text/preparer.js';
import type { VoiceAssignment } from '../voices/assignment.js';
import { VoxError } from '../errors.js';
import { Admission, type Admitted, type SpeakInput } from './admission.js';
import { Attention } from './attention.js';
import { DuplicateFilter } from './dedup.js';
import { IdleWaits } from './idle-waits.js';
import type { Replay } from './journal.js';
import { Ledger, type Counters } from './ledger.js';
import { Narration } from './narration.js';
import { NarrationOwners } from './narration-owners.js';
import { NarrationProfiles } from './narration-profiles.js';
import { Player, type HoldHandle } from './player.js';
import { SpeechQueue } from './queue.js';
import { playAgain } from './play-again.js';
import { Recall } from './recall.js';
import { speakRecap } from './recap.js';
import { restore } from './replay.js';
import type { Utterance } from './utterance.js';
import { UtteranceJournal } from './utterance-journal.js';
import type { DispatcherOptions } from './dispatcher-options.js';

export { HANDED_OVER, handedOver } from './ledger.js';
export type { DispatcherOptions } from './dispatcher-options.js';
export { REPLAY_MAX_AGE_MS } from './replay.js';
export type { SpeakInput } from './admission.js';

/** A listen's hold on the player, with its question (Dispatcher.hold). */
export interface ListenHold extends Pick<HoldHandle, 'ready' | 'release' | 'limit'> {
  /** Speak `input` through the hold; resolves with its final outcome. `signal` stops it. */
  say(input: SpeakInput, signal?: AbortSignal): Promise<SpeakResponse>;
}

export interface DispatcherEvents {
  event: [VoxEvent];
}

export class Dispatcher extends EventEmitter<DispatcherEvents> {
  /** How request texts are prepared (DispatcherOptions.prepare); /v1/synthesize prepares the same way. */
  readonly prepare: PrepareFn;
  readonly #clock: () => number;
  readonly #log: DispatcherOptions['log'];
  readonly #dedup: DuplicateFilter;
  readonly #queue = new SpeechQueue<Utterance>();
  readonly #ledger: Ledger;
  readonly #player: Player;
  readonly #admission: Admission;
  readonly #narration: Narration;
  /** Which path narrates each session's turn (the vox mod or vox mcp): a text two paths saw is spoken once. */
  readonly #owners = new NarrationOwners();
  /** How each session narrates, as its vox mcp declared: the mod's batches are spoken by it. */
  readonly #profiles = new NarrationProfiles();
  readonly #voices: VoiceAssignment | undefined;
  readonly #journal: UtteranceJournal;
  readonly #waits: IdleWaits;
  /** What was heard and missed, for recaps, history and replays (recall.ts). */
  readonly recall: Recall;
  /** The session the person is in, and what the others may say (attention.ts). */
  readonly attention: Attention;

  constructor(options: DispatcherOptions) {
    super();
    this.prepare = options.prepare ?? prepareAsGiven;
    this.#clock = options.clock ?? Date.now;
    this.#log = options.log;
    this.#voices = options.voices;
    this.#dedup = new DuplicateFilter(this.#clock);
    this.#waits = new IdleWaits(this.#dedup);
    this.recall = options.recall ?? new Recall(undefined, { clock: this.#clock });
    // The one writer of utterances' records in the journal (utterance-journal.ts).
    const journal = new UtteranceJournal(options.journal);
    this.#journal = journal;
    this.#ledger = new Ledger({
      clock: this.#clock,
      historySize: options.historySize ?? 200,
      dedup: this.#dedup,
      journal,
      recall: this.recall,
      sink: options.sink,
      log: this.#log,
      emit: (event) => {
        this.emit('event', event);
        if (event.type === 'held') this.attention.schedule();
      },
    });
    this.#player = new Player({
      queue: this.#queue,
      ledger: this.#ledger,
      sink: options.sink,
      clock: this.#clock,
      playbackGraceMs: options.playbackGraceMs ?? 2000,
      stream: { synthesizer: options.synthesizer, timeoutMs: options.synthesisTimeoutMs ?? 30_000, journal },
      log: this.#log,
      gate: options.quiet,
    });
    this.#admission = new Admission({
      synthesizer: options.synthesizer,
      sink: options.sink,
      prepare: this.prepare,
      clock: this.#clock,
      maxQueue: options.maxQueue ?? 10_000,
      queue: this.#queue,
      dedup: this.#dedup,
      waits: this.#waits,
      ledger: this.#ledger,
      player: this.#player,
      journal,
      voices: options.voices,
      log: this.#log,
    });
    this.attention = new Attention({
      ...(options.attention ?? { mode: 'all', digestMs: 180_000 }),
      recall: this.recall,
      clock: this.#clock,
      quiet: () => !this.#player.playing && this.#queue.length === 0,
      idle: () => this.idle(),
      admission: this.#admission,
      log: this.#log,
    });
    this.#narration = new Narration({
      admission: this.#admission,
      holds: (session) => this.attention.holds({ session, priority: 'text', kind: 'speech' }),
      queue: this.#queue,
      player: this.#player,
      ledger: this.#ledger,
      journal,
      log: this.#log,
      ...options.narration,
    });
  }

  /** Narrations waiting for their next batch (status). */
  narrating(limit: number): ReturnType<Narration['waiting']> {
    return this.#narration.waiting(limit);
  }

  /** The voice each session was given, newest use first. */
  sessionVoices(): SessionVoice[] {
    return this.#voices?.list() ?? [];
  }

  /** True once close() began: nothing more is accepted. */
  get closing(): boolean {
    return this.#admission.closed;
  }

  get queueLength(): number {
    return this.#queue.length;
  }

  get playing(): Readonly<Utterance> | null {
    return this.#player.playing;
  }

  get counters(): Counters {
    return this.#ledger.counters;
  }

  /** Queued utterances `offset` to `offset + limit`, in playing order (O(offset + limit)). */
  queuedPage(offset: number, limit: number): ReadonlyArray<Readonly<Utterance>> {
    return this.#queue.first(offset + limit).slice(offset);
  }

  /** How many are queued in each class. */
  queuedByPriority(): Record<Priority, number> {
    return this.#queue.counts();
  }

  history(): HistoryEntry[] {
    return this.#ledger.history();
  }

  /**
   * Accept a speech request. Resolves at once with the acceptance (queued,
   * deduped or dropped); `settled` resolves with the final outcome.
   */
  speak(input: SpeakInput): Promise<Admitted> {
    const held = this.attention.holds({ ...input, kind: 'speech' });
    return this.#admission.speech(input, held ? { held } : undefined);
  }

  /** Speak what the person missed since the last recap (recap.ts). */
  recap(): Promise<Admitted & { items: number; sessions: number }> {
    return speakRecap(this.#admission, this.recall);
  }

  /** Play the `n`th last played utterance (of `session`) again from the cache (play-again.ts). */
  replay(n = 1, session?: string): Promise<Admitted & { of: string }> {
    return playAgain(this.#admission, this.recall, n, session);
  }

  /** Take one batch of a message being written (narration.ts). */
  narrate(request: NarrationRequest): Promise<NarrationResponse> {
    if (this.#admission.closed) return Promise.reject(new VoxError('VOX_ERR_SHUTTING_DOWN'));
    // The mod's batch only where vox mcp declared the session narrating, and then as the config says; before the
    // claim, so a batch dropped here leaves the turn to vox mcp.
    const mod = request.source === 'mod' ? this.#profiles.modBatch(request) : { request };
    if ('reason' in mod)
      return Promise.resolve({ status: 'dropped', sentences: 0, reason: mod.reason, untilCut: true });
    const other = this.#owners.claim(request.session, request.source ?? 'mcp');
    if (other) return Promise.resolve({ status: 'dropped', sentences: 0, reason: other, untilCut: true });
    return this.#narration.batch(mod.request);
  }

  /** How `session` narrates, as its vox mcp read the project's config (narration-profiles.ts). */
  declareNarration(profile: NarrationSessionRequest): void {
    this.#profiles.declare(profile);
  }

  /** End what `session` narrates, for a new prompt (which ends its idle wait, and moves the focus there); the ids cut. */
  cutNarration(session: string): string[] {
    this.attention.focus(session, 'prompt');
    this.#waits.end(session);
    this.#owners.cut(session);
    return this.#narration.cut(session);
  }

  /** Accept a chime. Each signal has a fixed 5 s duplicate window. */
  chime(
    signal: ChimeSignal,
    options: { session?: string; priority?: Priority; volume?: number } = {},
  ): Promise<Admitted> {
    const held = this.attention.holds({ ...options, kind: 'chime' });
    return this.#admission.chime(signal, held ? { ...options, held } : options);
  }

  /** Replay what the journal held when voxd started (replay.ts). Call once, before serving. */
  restore(replay: Replay): { replayed: number; resumed: number; expired: number } {
    const counts = restore(replay, {
      clock: this.#clock,
      ledger: this.#ledger,
      dedup: this.#dedup,
      queue: this.#queue,
      player: this.#player,
      journal: this.#journal,
      log: this.#log,
    });
    this.#narration.adopt(this.#ledger.byId.values());
    return counts;
  }

  /**
   * Stop speech in a scope. Resolves with the ids that were stopped once the
   * audio of the one that was playing has really ended (the sink returned).
   */
  async stop(scope: StopScope = 'all', target?: { session?: string; id?: string }): Promise<string[]> {
    const stopped: string[] = [];
    const match = (u: Utterance): boolean => {
      switch (scope) {
        case 'all':
          return true;
        case 'current':
          return false;
        case 'session':
          return u.session === target?.session;
        case 'id':
          return u.id === target?.id;
      }
    };
    // The audio is cut first: settling a deep queue takes a while, and the user asked for silence.
    // The queue is emptied before anything is awaited, so nothing of it starts meanwhile.
    const p = this.#player.playing;
    const cut = p && (scope === 'current' || match(p)) ? p : undefined;
    if (cut) {
      stopped.push(cut.id);
      this.#player.abort('stopped', `stopped (${scope})`);
    }
    const removed = scope === 'current' ? [] : this.#queue.removeWhere(match);
    for (const u of removed) stopped.push(u.id);
    this.#ledger.settleLater(removed, 'stopped', `stopped (${scope})`);
    // A narration waiting for its next batch is in no queue, and is stopped all the same.
    if (scope !== 'current') stopped.push(...this.#narration.stopParked(match, `stopped (${scope})`));
    if (cut) await cut.ended;
    return stopped;
  }

  /** Cut the utterance playing for `detail` (voice barge-in): it ends `interrupted` and is not resumed. Resolves with its id once its audio has ended. */
  async cut(detail: string): Promise<string | undefined> {
    const p = this.#player.playing;
    if (!p) return undefined;
    this.#player.abort('interrupt-drop', detail);
    await p.ended;
    return p.id;
  }

  /**
   * Hold the player for a listen (player.ts): nothing queued starts until
   * `release()` or `limitMs`. `say()` speaks the listen's own question under
   * the hold, admitted like any request (journal, history, events), and
   * resolves with its outcome once it has played or settled otherwise.
   */
  hold(options: { interrupt?: boolean; limitMs: number; reason: string }): ListenHold {
    const h = this.#player.hold(options);
    return {
      ready: h.ready,
      release: h.release,
      limit: h.limit,
      say: async (input, signal) => {
        const admitted = await this.#admission.speech(input);
        const { id, status } = admitted.response;
        const u = status === 'queued' ? this.#ledger.byId.get(id) : undefined;
        if (u) h.let(u);
        // The listen was abandoned: its question is moot.
        const drop = () => void this.stop('id', { id });
        signal?.addEventListener('abort', drop, { once: true });
        if (signal?.aborted) drop();
        return admitted.settled.finally(() => signal?.removeEventListener('abort', drop));
      },
    };
  }

  /** Resolves when the queue is empty and nothing plays. */
  idle(): Promise<void> {
    return this.#player.idle();
  }

  /**
   * Stop accepting; let the current utterance finish for up to `graceMs`, then
   * cut it. With a journal, what was cut or still queued is handed over to the
   * next voxd; without one, it is reported failed.
   */
  async close(graceMs = 1500): Promise<void> {
    if (this.#admission.closed) return this.#player.idle();
    this.#admission.close();
    this.attention.close();
    this.#player.release();
    for (const u of this.#queue.removeWhere(() => true))
      this.#ledger.shutDown(u, 'voxd shut down before it was spoken');
    for (const u of this.#narration.parked())
      this.#ledger.shutDown(u, 'voxd shut down while the message was being written');
    if (this.#player.playing) {
      const timer = setTimeout(() => this.#player.abort('shutdown', 'voxd shut down'), graceMs);
      await this.#player.idle();
      clearTimeout(timer);
    }
  }
}
