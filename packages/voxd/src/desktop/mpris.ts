/**
 * voxd as an MPRIS media player (org.mpris.MediaPlayer2.vox), so headset
 * buttons and desktop media keys reach it without a terminal: play/pause
 * pauses and resumes speech (the quiet gate's `paused`), stop stops all and
 * ends a pause, next skips the utterance playing (or the one paused), and
 * previous plays the last utterance again (`vox replay`).
 *
 * When it owns the name: from the first speech queued after voxd starts
 * until ten minutes after the last ended (and for as long as it is paused),
 * so media keys go to the music player the rest of the time (a desktop sends
 * them to the player that spoke last). On Linux only, and only when a
 * session bus exists (DBUS_SESSION_BUS_ADDRESS): otherwise dbus-next is never
 * loaded, and `vox status` and `vox doctor` say why. The bus objects are in
 * mpris-bus.ts, imported on first use.
 */
import type { QuietStatus, VoxEvent } from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { QuietGate } from '../quiet/gate.js';
import type { MprisBus, MprisControls, PlaybackStatus } from './mpris-bus.js';

export const MPRIS_NAME = 'org.mpris.MediaPlayer2.vox';
/** How long the name is kept after the last speech ended. */
export const MPRIS_IDLE_RELEASE_MS = 10 * 60_000;

export interface MprisOptions {
  dispatcher: Dispatcher;
  gate: QuietGate;
  env: NodeJS.ProcessEnv;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  idleReleaseMs?: number;
  platform?: NodeJS.Platform;
}

/** Whether MPRIS can be served here, and why not (`vox doctor`, `vox status`). */
export function mprisAvailability(
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): { ok: boolean; detail: string } {
  if (platform !== 'linux') return { ok: false, detail: 'MPRIS is a Linux desktop interface' };
  if (!env.DBUS_SESSION_BUS_ADDRESS)
    return { ok: false, detail: 'no session bus (DBUS_SESSION_BUS_ADDRESS is not set): media keys do not reach vox' };
  return { ok: true, detail: 'on the session bus while vox speaks, and 10 minutes after' };
}

export class Mpris {
  readonly #o: MprisOptions;
  readonly #available: { ok: boolean; detail: string };
  readonly #controls: MprisControls;
  #bus: Promise<MprisBus | undefined> | undefined;
  #served = false;
  #failure: string | undefined;
  #release: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #onEvent = (e: VoxEvent) => this.#update(e);
  readonly #onGate = () => this.#update();

  constructor(options: MprisOptions) {
    this.#o = options;
    this.#available = mprisAvailability(options.env, options.platform);
    this.#controls = controls(options.dispatcher, options.gate, options.log);
    if (!this.#available.ok) return;
    options.dispatcher.on('event', this.#onEvent);
    options.gate.on('change', this.#onGate);
  }

  status(): QuietStatus['mpris'] {
    const { ok, detail } = this.#available;
    if (!ok) return { available: false, served: false, detail };
    if (this.#failure) return { available: true, served: false, detail: this.#failure };
    return {
      available: true,
      served: this.#served,
      detail: this.#served ? `serving ${MPRIS_NAME}` : `${MPRIS_NAME} is taken at the next speech`,
    };
  }

  /** Take the name at speech; tell the bus what changed; give the name back once idle for a while. */
  #update(e?: VoxEvent): void {
    if (this.#closed) return;
    const { dispatcher, gate } = this.#o;
    if (e?.type === 'queued' || e?.type === 'started') void this.#claim();
    void this.#bus?.then((b) => b?.changed(this.#controls));
    const idle = !dispatcher.playing && dispatcher.queueLength === 0 && !gate.has('paused');
    clearTimeout(this.#release);
    if (idle && this.#bus) {
      this.#release = setTimeout(() => this.#drop(), this.#o.idleReleaseMs ?? MPRIS_IDLE_RELEASE_MS);
      this.#release.unref();
    }
  }

  #claim(): Promise<MprisBus | undefined> {
    this.#bus ??= (async () => {
      try {
        // With xml2js a stand-in until a client asks for introspection data (lazy-requires.ts).
        const { withLazyRequires } = await import('../lazy-requires.js');
        const { MprisBus } = await withLazyRequires(() => import('./mpris-bus.js'));
        const bus = await MprisBus.connect(this.#o.env.DBUS_SESSION_BUS_ADDRESS!, this.#controls, (err) =>
          this.#o.log?.warn({ err: err.message }, 'the session bus failed'),
        );
        const name = await bus.own(MPRIS_NAME);
        if (this.#closed) {
          bus.close();
          return undefined;
        }
        this.#served = true;
        this.#failure = undefined;
        this.#o.log?.info({ name }, 'serving MPRIS on the session bus');
        bus.changed(this.#controls);
        return bus;
      } catch (err) {
        this.#failure = `cannot serve MPRIS: ${(err as Error).message}`;
        this.#o.log?.warn({ err: (err as Error).message }, 'cannot serve MPRIS on the session bus');
        this.#bus = undefined;
        return undefined;
      }
    })();
    return this.#bus;
  }

  #drop(): void {
    const bus = this.#bus;
    this.#bus = undefined;
    this.#served = false;
    void bus?.then((b) => b?.close());
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#release);
    this.#o.dispatcher.off('event', this.#onEvent);
    this.#o.gate.off('change', this.#onGate);
    this.#drop();
  }
}

/** What the keys do, on the dispatcher and the gate. */
function controls(dispatcher: Dispatcher, gate: QuietGate, log: MprisOptions['log']): MprisControls {
  const pause = () => gate.set('paused', 'paused by a media key (MPRIS)');
  const play = () => gate.set('paused', false);
  const failed = (what: string) => (err: Error) => log?.warn({ err: err.message }, `MPRIS ${what} failed`);
  return {
    status(): PlaybackStatus {
      if (gate.has('paused')) return 'Paused';
      if (dispatcher.playing) return 'Playing';
      return gate.held && dispatcher.queueLength > 0 ? 'Paused' : 'Stopped';
    },
    track() {
      const u = dispatcher.playing ?? dispatcher.queuedPage(0, 1)[0];
      return u ? { id: u.id, text: u.text, ...(u.session ? { session: u.session } : {}) } : undefined;
    },
    play,
    pause,
    playPause: () => (gate.has('paused') ? play() : pause()),
    stop() {
      // The queue is emptied at once (Dispatcher.stop), before the pause ends: nothing of it starts.
      const stopped = dispatcher.stop('all');
      play();
      stopped.catch(failed('stop'));
    },
    next() {
      // Paused, the utterance cut waits at the head of the queue: that is the one skipped.
      const head = dispatcher.playing ? undefined : dispatcher.queuedPage(0, 1)[0];
      const skipped = head ? dispatcher.stop('id', { id: head.id }) : dispatcher.stop('current');
      skipped.catch(failed('next'));
    },
    previous() {
      dispatcher.replay(1).catch(failed('previous'));
    },
  };
}
