/**
 * `vox status [--json] [--watch]`: voxd's state, queue and recent history.
 * `--watch` follows GET /v1/events: a compact live view on a TTY, one plain
 * line per event when piped. It outlives voxd: a restart, an upgrade or a
 * crash is reported, and the watch reconnects when voxd is back.
 */
import { request as httpRequest } from 'node:http';
import {
  compareVersions,
  printable as safe,
  VERSION,
  type AttentionStatus,
  type AttentionStatusField,
  type NarratingStatusField,
  type QuietStatusField,
  type SessionVoices,
  type StatusResponse,
  type TranscriberStatusField,
  type VoxEvent,
} from '@vox/protocol';
import { call } from '../../client/call.js';
import { floorState, isVoiceBargeIn } from '../../client/listening.js';
import { connectOptions, readDaemonState } from '../../daemon/http.js';
import { resolveEndpoint } from '../../client/endpoint.js';
import { defineCommand } from '../command.js';
import { EXIT, unlessAborted, type CliContext } from '../context.js';
import { daemonDown } from '../daemon-down.js';
import { reportWireError } from '../report.js';

const USAGE = `Usage: vox status [--json] [--watch]

  --json        print the raw status
  -w, --watch   follow the queue live, across voxd restarts (Ctrl-C to quit)
  -h, --help    show this help
`;

/** Text from the wire made safe for a terminal (a session label or text must not move the cursor). */
const printable = (text: unknown): string => safe(String(text ?? ''));

function clip(text: string, n = 60): string {
  const safe = printable(text);
  return safe.length > n ? `${safe.slice(0, n - 1)}…` : safe;
}

const p = (v: unknown) => printable(v);

export function formatStatus(
  s: StatusResponse &
    SessionVoices &
    TranscriberStatusField &
    NarratingStatusField &
    AttentionStatusField &
    QuietStatusField,
  clientVersion = VERSION,
): string {
  const lines = [
    `voxd ${s.version} (client ${clientVersion}${s.version !== clientVersion ? ', versions differ: run "vox daemon restart"' : ''}), pid ${s.pid}, up ${Math.round(s.uptimeMs / 1000)} s`,
    `engine: ${p(s.engine.name)} ${s.engine.ready ? 'ready' : `NOT READY: ${p(s.engine.reason)}`}`,
    `audio:  ${p(s.sink.name)} ${s.sink.ok ? 'ok' : 'FAILING'}${s.sink.detail ? ` (${p(s.sink.detail)})` : ''}${s.sink.lastError ? ` last error: ${p(s.sink.lastError)}` : ''}`,
    `counts: accepted ${s.counters.accepted}, played ${s.counters.played}, deduped ${s.counters.deduped}, failed ${s.counters.failed}, expired ${s.counters.expired}, interrupted ${s.counters.interrupted}, dropped ${s.counters.dropped}${s.counters.held ? `, held ${s.counters.held}` : ''}`,
    `now:    ${s.playing ? `[${p(s.playing.priority)}] ${p(s.playing.session ?? '-')}: ${clip(s.playing.text)}` : 'silent'}`,
    // Only while speech is held for all (paused by a media key, the microphone in use, quiet hours): why.
    ...(s.quiet?.held ? [`held:   ${s.quiet.reasons.map((r) => p(r.detail)).join('; ')}`] : []),
    // Only while someone holds it: the line says who ("vox stop" ends a listen), whether it is open, and how many wait.
    ...(s.listening ? [`mic:    ${micHolder(s.listening)}`] : []),
    // What a listen would transcribe with (an older voxd does not say).
    ...(s.transcriber
      ? [
          `stt:    ${s.transcriber.using ? p(s.transcriber.using) : `none${s.transcriber.problem ? ` (${p(s.transcriber.problem)})` : ''}`} (transcriber.kind ${p(s.transcriber.kind)})`,
        ]
      : []),
    // The session the person is in, and what is held of the others (an older voxd does not say).
    ...(s.attention ? attentionLines(s.attention) : []),
    `queue:  ${s.queue.length}`,
    ...s.queue.items.slice(0, 10).map((q) => `  [${p(q.priority)}] ${p(q.session ?? '-')}: ${clip(q.text)}`),
    // Narrations out of the queue until the model writes more (an older voxd sends none).
    ...(s.narrating?.length
      ? [
          `narrating: ${s.narrating.length} waiting for the model's next lines`,
          ...s.narrating.items
            .slice(0, 10)
            .map(
              (n) =>
                `  ${p(n.session).padEnd(16)} ${n.spoken} sentence${n.spoken === 1 ? '' : 's'} spoken, waiting ${Math.round(n.waitingMs / 1000)} s`,
            ),
        ]
      : []),
    // Each session's own voice (an older voxd sends none).
    ...(s.sessionVoices?.length
      ? [
          'voices:',
          ...s.sessionVoices.slice(0, 10).map((v) => `  ${p(v.session).padEnd(16)} ${p(v.engine)} ${p(v.voice)}`),
        ]
      : []),
    'recent:',
    ...s.history
      .slice(0, 10)
      .map(
        (h) =>
          `  ${p(h.acceptedAt.slice(11, 19))} ${p(h.outcome).padEnd(11)} ${p(h.session ?? '-').padEnd(16)} ${clip(h.text, 50)}${h.reason ? ` (${p(h.reason)})` : ''}`,
      ),
  ];
  return `${lines.join('\n')}\n`;
}

/** "focus:  api#9a1b2c (prompt; attention focus)" and, while some is held, a line a session. */
export function attentionLines(a: AttentionStatus): string[] {
  const due = a.digestDueAt ? `, digest due ${p(a.digestDueAt.slice(11, 19))}` : '';
  return [
    `focus:  ${a.focus ? `${p(a.focus)} (${p(a.reason ?? '?')}; ` : 'none yet ('}attention ${p(a.mode)}${due})`,
    ...a.held.slice(0, 10).map((h) => `  held ${String(h.held).padStart(3)} ${p(h.session || '-')}`),
  ];
}

/** Who has the microphone: a listen (its session, whether it records, who waits), or the voice barge-in monitor. */
function micHolder(l: NonNullable<StatusResponse['listening']>): string {
  if (isVoiceBargeIn(l))
    return 'open for voice barge-in while vox speaks (listen.bargeIn voice): speaking cuts the utterance';
  return `held by ${l.session ? `session ${p(l.session)}` : 'a listen without a session'} (${p(l.id)})${floorState(l) ? `, ${floorState(l)}` : ''}`;
}

export const command = defineCommand({
  name: 'status',
  usage: USAGE,
  flags: { json: { type: 'boolean' }, watch: { type: 'boolean', short: 'w' } },
  async run({ ctx, flags: values }) {
    const env = { ...ctx.env, VOX_NO_AUTOSTART: ctx.env.VOX_NO_AUTOSTART ?? '1' };
    // A watch takes the signals from the start: one during this first request ends it too, exit 0.
    const signal = values.watch ? ctx.takeSignals?.() : undefined;
    let reply;
    try {
      reply = await unlessAborted(call<StatusResponse>(env, 'GET', '/v1/status'), signal);
    } catch (err) {
      if (signal?.aborted) return EXIT.OK;
      // A link that is down is still shown: host, keeper, spool (remote/link-state.ts).
      const link = values.watch ? undefined : await remoteState(ctx.env);
      if (link) ctx.stdout.write(values.json ? `${JSON.stringify({ remote: link })}\n` : await remoteText(link));
      throw daemonDown(err, 'status', ctx.env);
    }
    if (reply.status !== 200) return reportWireError(ctx, 'status', reply.status, reply.body);
    if (!values.watch) {
      const link = await remoteState(ctx.env);
      ctx.stdout.write(
        values.json
          ? `${JSON.stringify(link ? { ...reply.body, remote: link } : reply.body)}\n`
          : `${formatStatus(reply.body)}${link ? await remoteText(link) : ''}`,
      );
      if (compareVersions(reply.body.version, VERSION) < 0)
        ctx.stderr.write(
          `vox status: voxd ${reply.body.version} is older than this client (${VERSION}); run "vox daemon restart"\n`,
        );
      return EXIT.OK;
    }
    return await watch(ctx, env);
  },
});
export const run = command.run;

/** This host's remote link (remote/link-state.ts), when it has one; `--json` gives it as `remote`. */
async function remoteState(env: NodeJS.ProcessEnv) {
  const { readLink } = await import('../../remote/link.js');
  if (!readLink(env)) return undefined;
  return (await import('../../remote/link-state.js')).linkState(env);
}

async function remoteText(link: NonNullable<Awaited<ReturnType<typeof remoteState>>>): Promise<string> {
  return `${(await import('../../remote/link-state.js')).formatLink(link)}\n`;
}

/** An HTTP answer other than 200 from /v1/events: a refusal, not a stopped voxd. */
class EventsRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status} from /v1/events`);
  }
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** Called once the stream is open, with voxd's version (its x-voxd-version header). */
  onOpen?: (version: string | undefined) => void;
  /** Give up when nothing, not even a heartbeat, arrives for this long, in ms (default 40 000). */
  staleMs?: number;
  /** Sent as Last-Event-ID: the same voxd replays what came after it (or sends a `gap` event). */
  lastEventId?: string;
}

/** voxd's notice that events were lost to this client (it fell behind, or was away too long). */
export interface GapEvent {
  type: 'gap';
  missed: number;
  reason: string;
}

/**
 * Follow the event stream of the voxd that `env` points at (read afresh: a
 * restarted voxd may have a new port and token) until it ends. Resolves when
 * voxd closes the stream or the signal aborts; rejects with EventsRefused on an
 * HTTP refusal, and with the connection's error when voxd cannot be reached or
 * goes away mid-stream.
 */
export function followEvents(
  env: NodeJS.ProcessEnv,
  onEvent: (e: VoxEvent | GapEvent, id: string | undefined) => void,
  options: FollowOptions = {},
): Promise<void> {
  const { signal, onOpen, staleMs = STALE_MS, lastEventId } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return resolve();
    let endpoint;
    try {
      endpoint = resolveEndpoint(env);
    } catch (err) {
      return reject(err);
    }
    // Read by watch() alone, which words it as why voxd is down and keeps waiting: not a failure it reports.
    if (!endpoint) return reject(new Error('voxd is not running (no voxd.json)'));
    const headers: Record<string, string> = {};
    if (endpoint.token) headers.authorization = `Bearer ${endpoint.token}`;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const req = httpRequest(
      { ...connectOptions(endpoint), path: '/v1/events', headers, ...(signal ? { signal } : {}) },
      (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => {
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON
            }
            reject(new EventsRefused(res.statusCode ?? 0, body));
          });
          return;
        }
        const v = res.headers['x-voxd-version'];
        onOpen?.(typeof v === 'string' ? v : undefined);
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (d: string) => {
          buf += d;
          let i;
          while ((i = buf.indexOf('\n\n')) !== -1) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const lines = block.split('\n');
            const data = lines.find((l) => l.startsWith('data: '));
            const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
            if (data) onEvent(JSON.parse(data.slice(6)) as VoxEvent | GapEvent, id);
          }
        });
        res.on('end', resolve);
        res.on('error', (err) => (signal?.aborted ? resolve() : reject(err)));
      },
    );
    // voxd sends a heartbeat every 15 s: a silent socket is a voxd that is gone (or hung).
    // req.destroy() takes a plain Error; watch() reads its words as why voxd is down.
    req.setTimeout(staleMs, () => req.destroy(new Error(`no heartbeat from voxd for ${Math.round(staleMs / 1000)} s`)));
    req.on('error', (err) => ((err as Error).name === 'AbortError' || signal?.aborted ? resolve() : reject(err)));
    req.end();
  });
}

/** voxd's heartbeat comes every 15 s; a stream silent for this long is dead, in ms. */
const STALE_MS = 40_000;
/** How often a watch looks for voxd again once it has stopped, in ms. */
const RETRY_MS = 500;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Why the stream ended, in words: Node's "aborted" or "ECONNRESET" mean nothing to a reader. */
function lostBecause(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'nothing listens on its port';
  if (err.code === 'ECONNRESET' || err.message === 'aborted' || err.code === 'ECONNABORTED')
    return 'the connection closed';
  return err.message;
}

/**
 * Follow voxd across its restarts: when the stream drops (voxd stopped,
 * restarted, upgraded or crashed) say so, retry every RETRY_MS (re-reading
 * voxd.json and the token each time), and say when it is back. Ends, exit 0,
 * only when `signal` aborts (Ctrl-C); an HTTP refusal (a bad token) ends it
 * with that error's exit code.
 */
async function watch(ctx: CliContext, env: NodeJS.ProcessEnv): Promise<number> {
  const signal = ctx.takeSignals?.() ?? new AbortController().signal;
  const tty = ctx.stdout.isTTY === true;
  const note = (text: string) => ctx.stdout.write(`${new Date().toISOString()} ${text}\n`);
  const render = async () => {
    try {
      const r = await call<StatusResponse>(env, 'GET', '/v1/status');
      if (r.status === 200) ctx.stdout.write(`\x1b[2J\x1b[H${formatStatus(r.body)}`);
    } catch {
      // voxd went away between the event and this request: the stream says so next.
    }
  };
  // Event ids count per voxd: Last-Event-ID is sent only back to the voxd that numbered them.
  let lastId: string | undefined;
  let idsFrom: string | undefined;
  const daemonKey = () => {
    const st = readDaemonState(env);
    return st ? `${st.pid} ${st.startedAt}` : undefined;
  };
  const onEvent = (e: VoxEvent | GapEvent, id: string | undefined) => {
    if (id !== undefined) lastId = id;
    if (e.type === 'gap') {
      note(`missed ${e.missed} event(s): ${e.reason}`);
      if (tty) void render();
      return;
    }
    if (tty) void render();
    else
      ctx.stdout.write(
        `${p(e.at)} ${p(e.type)} ${p(e.id)} ${p(e.priority)} ${p(e.session ?? '-')}${e.reason ? ` ${p(e.reason)}` : ''}${e.originalId ? ` of ${p(e.originalId)}` : ''}\n`,
      );
  };
  if (tty) await render();
  let down = false;
  let refused = false;
  while (!signal.aborted) {
    let opened = false;
    const key = daemonKey();
    const resume = lastId !== undefined && key !== undefined && key === idsFrom ? lastId : undefined;
    const onOpen = (header: string | undefined) => {
      opened = true;
      refused = false;
      if (key !== idsFrom) lastId = undefined;
      idsFrom = key;
      if (!down) return;
      down = false;
      const state = readDaemonState(env);
      const version = header ?? state?.version;
      note(
        `voxd${version ? ` ${version}` : ''} is back${state ? ` (pid ${state.pid}, ${state.host}:${state.port})` : ''}`,
      );
      if (tty) void render();
    };
    let why: string;
    try {
      await followEvents(env, onEvent, { signal, onOpen, ...(resume !== undefined ? { lastEventId: resume } : {}) });
      why = 'it closed the event stream';
    } catch (err) {
      if (err instanceof EventsRefused) {
        // While voxd restarts, its token file can be read just before the new one is written: retry.
        if (!down) return reportWireError(ctx, 'status', err.status, err.body);
        if (!refused) note(`voxd answers but refuses this client (HTTP ${err.status}); retrying`);
        refused = true;
        await sleep(RETRY_MS, signal);
        continue;
      }
      why = lostBecause(err as NodeJS.ErrnoException);
    }
    if (signal.aborted) break;
    if (opened || !down) {
      down = true;
      note(`voxd stopped (${why}); waiting for it to come back (Ctrl-C to quit)`);
    }
    await sleep(RETRY_MS, signal);
  }
  return EXIT.OK;
}
