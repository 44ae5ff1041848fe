/**
 * The MPRIS objects on the session bus (@particle/dbus-next, a kept fork of
 * dbus-next without its optional native usocket, whose node-gyp 7 broke the
 * install of speaker): `org.mpris.MediaPlayer2`
 * and `org.mpris.MediaPlayer2.Player` at /org/mpris/MediaPlayer2. Loaded only
 * by mpris.ts, only when a session bus exists and vox has something to say,
 * so a voxd without a bus never loads dbus-next (some 3 MB of heap).
 * The methods only call the controls; what they mean lives in mpris.ts.
 */
import dbus, { type MessageBus, type Variant } from '@particle/dbus-next';

const OBJECT_PATH = '/org/mpris/MediaPlayer2';
const NO_TRACK = '/org/mpris/MediaPlayer2/TrackList/NoTrack';

export type PlaybackStatus = 'Playing' | 'Paused' | 'Stopped';

/** What the player shows and does; mpris.ts gives it. */
export interface MprisControls {
  status(): PlaybackStatus;
  /** The utterance playing or paused: its id, text and session. */
  track(): { id: string; text: string; session?: string } | undefined;
  play(): void;
  pause(): void;
  playPause(): void;
  stop(): void;
  next(): void;
  previous(): void;
}

const { Interface, ACCESS_READ } = dbus.interface;
const ro = (signature: string): dbus.interface.PropertyOptions => ({ signature, access: ACCESS_READ });

class Root extends Interface {
  get CanQuit(): boolean {
    return false;
  }
  get CanRaise(): boolean {
    return false;
  }
  get HasTrackList(): boolean {
    return false;
  }
  get Identity(): string {
    return 'vox';
  }
  get SupportedUriSchemes(): string[] {
    return [];
  }
  get SupportedMimeTypes(): string[] {
    return [];
  }
  Raise(): void {}
  Quit(): void {}
}
Root.configureMembers({
  properties: {
    CanQuit: ro('b'),
    CanRaise: ro('b'),
    HasTrackList: ro('b'),
    Identity: ro('s'),
    SupportedUriSchemes: ro('as'),
    SupportedMimeTypes: ro('as'),
  },
  methods: { Raise: {}, Quit: {} },
});

class PlayerInterface extends Interface {
  readonly #c: MprisControls;
  constructor(controls: MprisControls) {
    super('org.mpris.MediaPlayer2.Player');
    this.#c = controls;
  }
  get PlaybackStatus(): string {
    return this.#c.status();
  }
  get Metadata(): Record<string, Variant> {
    return metadata(this.#c.track());
  }
  get Rate(): number {
    return 1;
  }
  get MinimumRate(): number {
    return 1;
  }
  get MaximumRate(): number {
    return 1;
  }
  get Volume(): number {
    return 1;
  }
  get Position(): bigint {
    return 0n;
  }
  get CanGoNext(): boolean {
    return true;
  }
  get CanGoPrevious(): boolean {
    return true;
  }
  get CanPlay(): boolean {
    return true;
  }
  get CanPause(): boolean {
    return true;
  }
  get CanSeek(): boolean {
    return false;
  }
  get CanControl(): boolean {
    return true;
  }
  Next(): void {
    this.#c.next();
  }
  Previous(): void {
    this.#c.previous();
  }
  Pause(): void {
    this.#c.pause();
  }
  PlayPause(): void {
    this.#c.playPause();
  }
  Stop(): void {
    this.#c.stop();
  }
  Play(): void {
    this.#c.play();
  }
  Seek(): void {}
  SetPosition(): void {}
  OpenUri(): void {}
  Seeked(): bigint {
    return 0n;
  }
}
PlayerInterface.configureMembers({
  properties: {
    PlaybackStatus: ro('s'),
    Metadata: ro('a{sv}'),
    Rate: ro('d'),
    MinimumRate: ro('d'),
    MaximumRate: ro('d'),
    Volume: ro('d'),
    Position: ro('x'),
    CanGoNext: ro('b'),
    CanGoPrevious: ro('b'),
    CanPlay: ro('b'),
    CanPause: ro('b'),
    CanSeek: ro('b'),
    CanControl: ro('b'),
  },
  methods: {
    Next: {},
    Previous: {},
    Pause: {},
    PlayPause: {},
    Stop: {},
    Play: {},
    Seek: { inSignature: 'x' },
    SetPosition: { inSignature: 'ox' },
    OpenUri: { inSignature: 's' },
  },
  signals: { Seeked: { signature: 'x' } },
});

function metadata(track: ReturnType<MprisControls['track']>): Record<string, Variant> {
  if (!track) return { 'mpris:trackid': new dbus.Variant('o', NO_TRACK) };
  const text = track.text.length > 120 ? `${track.text.slice(0, 119)}…` : track.text;
  return {
    'mpris:trackid': new dbus.Variant('o', `/org/vox/utterance/${track.id.replace(/[^A-Za-z0-9_]/g, '_')}`),
    'xesam:title': new dbus.Variant('s', text),
    'xesam:artist': new dbus.Variant('as', [track.session?.split('#')[0] ?? 'vox']),
  };
}

/** voxd's player on the bus, under its well-known name while it is held. */
export class MprisBus {
  readonly #bus: MessageBus;
  readonly #player: PlayerInterface;
  #last = '';
  name: string | undefined;

  private constructor(bus: MessageBus, player: PlayerInterface) {
    this.#bus = bus;
    this.#player = player;
  }

  /** Connect to the session bus at `address` (DBUS_SESSION_BUS_ADDRESS) and export the objects; no name yet. */
  static async connect(address: string, controls: MprisControls, onError: (err: Error) => void): Promise<MprisBus> {
    const bus = dbus.sessionBus({ busAddress: address });
    bus.on('error', onError);
    const player = new PlayerInterface(controls);
    bus.export(OBJECT_PATH, new Root('org.mpris.MediaPlayer2'));
    bus.export(OBJECT_PATH, player);
    return new MprisBus(bus, player);
  }

  /** Take `name`, or `name.instance<pid>` when another player holds it (the MPRIS spec's rule). */
  async own(name: string): Promise<string> {
    const flags = dbus.NameFlag.DO_NOT_QUEUE;
    const r = await this.#bus.requestName(name, flags);
    let owned = name;
    if (r !== dbus.RequestNameReply.PRIMARY_OWNER && r !== dbus.RequestNameReply.ALREADY_OWNER) {
      owned = `${name}.instance${process.pid}`;
      await this.#bus.requestName(owned, flags);
    }
    this.name = owned;
    return owned;
  }

  /** Tell listeners (a desktop's media widget, playerctl --follow) what changed. */
  changed(controls: MprisControls): void {
    const status = controls.status();
    const key = `${status}\n${controls.track()?.id ?? ''}`;
    if (key === this.#last) return;
    this.#last = key;
    Interface.emitPropertiesChanged(this.#player, { PlaybackStatus: status, Metadata: metadata(controls.track()) }, []);
  }

  close(): void {
    this.#bus.disconnect();
  }
}
