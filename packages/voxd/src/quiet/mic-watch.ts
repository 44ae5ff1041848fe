/**
 * The microphone watch: while another program records (a call, dictation),
 * the quiet gate holds speech. With PulseAudio or PipeWire (its pulse
 * server), one `pactl subscribe` child tells when capture streams come and
 * go, and `pactl list source-outputs` is read only then (no poll). Without
 * pactl, ALSA's /proc/asound/card*\/pcm*c/sub*\/status files are read every
 * two seconds (`state: RUNNING`). Either way a stream whose process is voxd
 * or one of its descendants (its recorder: arecord, rec, pw-record under a
 * listen or barge-in) is vox's own and does not count.
 *
 * A paused (corked) stream and pavucontrol's level meters are not someone
 * recording. A sound server that cannot be reached is tried again every ten
 * seconds; until then nothing is held (a watch that fails must not silence vox).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { QuietStatus } from '@vox/protocol';
import type { QuietGate } from './gate.js';

const RETRY_MS = 10_000;
const ALSA_POLL_MS = 2000;
const ASOUND = '/proc/asound';
const SUBSCRIBE =
  'exec 3<&0; pactl subscribe </dev/null & p=$!; (read _ <&3; kill $p 2>/dev/null) & r=$!; wait $p; kill $r 2>/dev/null';

export interface MicWatchOptions {
  gate: QuietGate;
  env: NodeJS.ProcessEnv;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** The process whose descendants are vox's own recording; default voxd itself. */
  ownPid?: number;
}

type Watch = QuietStatus['microphone']['watch'];

/** Which watch works here: pactl on PATH, else ALSA's /proc files, else none (not Linux). */
export function micWatchKind(env: NodeJS.ProcessEnv, platform = process.platform): Watch {
  if (platform !== 'linux') return 'none';
  const onPath = (env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'pactl')));
  if (onPath) return 'pactl';
  return existsSync(ASOUND) ? 'alsa' : 'none';
}

/** One capture stream of `pactl list source-outputs`: its process and whether it really records. */
export interface CaptureStream {
  pid: number | undefined;
  name: string;
  corked: boolean;
  meter: boolean;
}

/** The streams of `pactl list source-outputs` (its text form: every pactl version prints it). */
export function parseSourceOutputs(text: string): CaptureStream[] {
  return text
    .split(/^Source Output #/m)
    .slice(1)
    .map((block) => {
      const prop = (key: string) => new RegExp(`^\\s*${key.replace('.', '\\.')} = "([^"]*)"`, 'm').exec(block)?.[1];
      const pid = Number(prop('application.process.id'));
      return {
        pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
        name: prop('application.name') ?? prop('application.process.binary') ?? 'a program',
        corked: /^\s*Corked: yes/m.test(block),
        meter: prop('media.name') === 'Peak detect' || prop('application.id') === 'org.PulseAudio.pavucontrol',
      };
    });
}

/** True when `pid` is `root` or descends from it (Linux: /proc/PID/stat's parent chain). */
export function descendsFrom(pid: number, root: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === root) return true;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return false;
    }
  }
  return false;
}

export class MicWatch {
  readonly #o: MicWatchOptions;
  readonly #own: number;
  readonly kind: Watch;
  #detail: string;
  #child: ChildProcess | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #again = false;
  #closed = false;

  constructor(options: MicWatchOptions, kind = micWatchKind(options.env)) {
    this.#o = options;
    this.#own = options.ownPid ?? process.pid;
    this.kind = kind;
    this.#detail =
      kind === 'none' ? 'no pactl and no /proc/asound: nothing tells when the microphone is in use' : 'starting';
    if (kind === 'pactl') this.#subscribe();
    else if (kind === 'alsa') this.#pollAlsa();
  }

  status(): QuietStatus['microphone'] {
    return { watch: this.kind, detail: this.#detail };
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    // Its stdin closed: the shell kills pactl and ends.
    this.#child?.stdin?.end();
    this.#child = undefined;
    this.#o.gate.set('microphone', false);
  }

  #hold(users: string[]): void {
    this.#o.gate.set(
      'microphone',
      users.length ? `the microphone is in use by ${[...new Set(users)].join(', ')}` : false,
    );
  }

  #subscribe(): void {
    if (this.#closed) return;
    // Through sh, so that pactl ends with voxd even after a kill -9: the shell kills it when its stdin (voxd's pipe) closes.
    const child = spawn('sh', ['-c', SUBSCRIBE], { env: this.#o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    let buffered = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buffered += d;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      if (lines.some((l) => l.includes('source-output'))) this.#checkPactl();
    });
    child.stderr!.resume();
    child.stdin!.on('error', () => {});
    child.on('error', () => {});
    child.on('exit', () => {
      if (this.#child !== child) return;
      this.#child = undefined;
      this.#detail = 'pactl cannot reach the sound server (PulseAudio or PipeWire); trying again every 10 s';
      this.#hold([]);
      this.#timer = setTimeout(() => this.#subscribe(), RETRY_MS);
      this.#timer.unref();
    });
    // The streams already open: subscribe only tells what changes.
    this.#checkPactl();
  }

  /** Read the capture streams once; a change meanwhile reads them again after. */
  #checkPactl(): void {
    if (this.#checking) {
      this.#again = true;
      return;
    }
    this.#checking = true;
    const child = spawn('pactl', ['list', 'source-outputs'], { env: this.#o.env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', () => {});
    child.on('close', (code) => {
      this.#checking = false;
      if (this.#closed) return;
      if (code === 0) {
        this.#detail = 'watching capture streams with pactl';
        const users = parseSourceOutputs(out).filter(
          (s) => !s.corked && !s.meter && !(s.pid !== undefined && descendsFrom(s.pid, this.#own)),
        );
        this.#hold(users.map((s) => s.name));
      }
      if (this.#again) {
        this.#again = false;
        this.#checkPactl();
      }
    });
  }

  #pollAlsa(): void {
    if (this.#closed) return;
    const users: string[] = [];
    try {
      for (const card of readdirSync(ASOUND).filter((c) => /^card\d+$/.test(c)))
        for (const pcm of readdirSync(join(ASOUND, card)).filter((p) => /^pcm\d+c$/.test(p)))
          for (const sub of readdirSync(join(ASOUND, card, pcm)).filter((s) => /^sub\d+$/.test(s))) {
            const status = readFileSync(join(ASOUND, card, pcm, sub, 'status'), 'utf8');
            if (!/^state:\s*RUNNING/m.test(status)) continue;
            const owner = Number(/^owner_pid\s*:\s*(\d+)/m.exec(status)?.[1]);
            if (owner && descendsFrom(owner, this.#own)) continue;
            users.push(owner ? `process ${owner}` : `${card} ${pcm}`);
          }
      this.#detail = 'watching ALSA capture devices in /proc/asound';
    } catch (err) {
      this.#detail = `cannot read /proc/asound: ${(err as Error).message}`;
    }
    this.#hold(users);
    this.#timer = setTimeout(() => this.#pollAlsa(), ALSA_POLL_MS);
    this.#timer.unref();
  }
}
