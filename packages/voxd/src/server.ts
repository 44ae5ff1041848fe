/**
 * buildServer() assembles voxd's HTTP app without listening (fastify's testing
 * pattern): routes are plugins that translate HTTP into calls on the
 * dispatcher. daemon.ts listens, handles signals and exits.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { MAX_BODY_BYTES, VERSION, wireError } from '@vox/protocol';
import { Dispatcher, type DispatcherOptions } from './dispatch/dispatcher.js';
import type { Engine } from './engines/engine.js';
import { ConnectionLimit } from './connections.js';
import {
  clientErrorResponse,
  HEADERS_TIMEOUT_SECONDS,
  IDLE_CONNECTION_SECONDS,
  REQUEST_TIMEOUT_SECONDS,
  toWireError,
} from './errors.js';
import { chimeRoute } from './routes/chime.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';
import { eventsRoute } from './routes/events.js';
import { focusRoutes } from './routes/focus.js';
import { listenerSlot, listenRoute, type ListenerSlot } from './routes/listen.js';
import type { TranscriberConfig } from './listen/transcriber.js';
import type { VadMode } from './listen/silero.js';
import type { TranscriberKind } from './listen/transcription.js';
import { speakRoute } from './routes/speak.js';
import { statusRoutes } from './routes/status.js';
import { stopRoute } from './routes/stop.js';
import { talkRoute } from './routes/talk.js';
import { narrationRoute } from './routes/narration.js';
import { TalkInbox } from './talk/inbox.js';
import { synthesizeRoute } from './routes/synthesize.js';
import { voicesRoute } from './routes/voices.js';
import type { Journal } from './dispatch/journal.js';
import type { Recall } from './dispatch/recall.js';
import { recallRoutes } from './routes/recall.js';
import { guard } from './access/security.js';
import type { Sink } from './sinks/sink.js';
import type { Synthesizer } from './synthesis/synthesizer.js';
import type { PrepareFn } from './text/preparer.js';
import type { VoiceAssignment } from './voices/assignment.js';
import { QuietGate } from './quiet/gate.js';
import { QuietHours } from './quiet/quiet-hours.js';
import { MicWatch } from './quiet/mic-watch.js';
import { Mpris } from './desktop/mpris.js';
import { schemaCompilers, type ValidatorBuilder } from './validators.js';

export { singleEngine } from './synthesis/synthesizer.js';

export interface ServerOptions {
  token: string;
  synthesizer: Synthesizer;
  sink: Sink;
  /** Text cleanup and sentence splitting (text/preparer.ts); default: the text as given. */
  prepare?: PrepareFn;
  /** Per-client buffer and replay ring of GET /v1/events (event-stream.ts defaults). */
  events?: EventStreamOptions;
  clock?: () => number;
  logger?: FastifyBaseLogger;
  version?: string;
  maxQueue?: number;
  /** Most PCM bytes one /v1/synthesize answer holds; default 32 MiB (synthesis/recording.ts). */
  synthesizeMaxBytes?: number;
  /** Accepted requests kept across restarts (dispatch/journal.ts). The caller opens and closes it, and calls dispatcher.restore(journal.replay). */
  journal?: Journal;
  /** Each session's own voice (voices/assignment.ts). */
  voices?: VoiceAssignment;
  /** What was heard and missed (dispatch/recall.ts); default: in memory. The caller closes it. */
  recall?: Recall;
  /** The settings `attention` and `digestMs` (dispatch/attention.ts); default `all`. */
  attention?: DispatcherOptions['attention'];
  /** Most connections held at once; default a share of the descriptor limit (connections.ts). */
  maxConnections?: number;
  /**
   * What holds all speech besides a request (quiet/): quiet hours (`HH:MM-HH:MM`), the watch of other programs
   * recording (`auto` or `off`), and MPRIS on the session bus of `env`. None: only the gate, opened by nothing.
   */
  quiet?: { hours: string; microphone: string; env: NodeJS.ProcessEnv };
  /** Voice input (POST /v1/listen); without it, listens record nothing and say so. */
  listen?: {
    home: string;
    recorder: string;
    vad?: VadMode;
    bargeIn?: string;
    transcriber: TranscriberConfig & { kind?: TranscriberKind };
    env?: NodeJS.ProcessEnv;
  };
  /** The routes' validator compiler (validators.ts); default: the build's precompiled validators, else ajv's. */
  validators?: ValidatorBuilder;
}

export interface VoxServer {
  app: FastifyInstance;
  dispatcher: Dispatcher;
  /** The fan-out of GET /v1/events. */
  events: EventStream;
  /** The microphone's owner, loaded on the first listen. */
  listener: ListenerSlot;
  /** The connection limit (connections.ts). */
  connections: ConnectionLimit;
}

const PUBLIC_PATHS = new Set(['/v1/health']);

export async function buildServer(options: ServerOptions): Promise<VoxServer> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: MAX_BODY_BYTES,
    // In-flight `wait` requests get their outcome during shutdown; idle keep-alives are closed.
    forceCloseConnections: 'idle',
    // Our own lines carry the request id and session; fastify's per-request pair is noise.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    ajv: { customOptions: { allErrors: false, coerceTypes: false, removeAdditional: false } },
    // Without ajv at run time where the build compiled the schemas (validators.ts).
    schemaController: { compilersFactory: schemaCompilers(options.validators) },
    // A request whose body never finishes must not hold its connection for ever (fastify's default is no limit).
    requestTimeout: REQUEST_TIMEOUT_SECONDS * 1000,
    // An idle keep-alive is closed soon (fastify's default is 72 s): each holds a descriptor.
    keepAliveTimeout: IDLE_CONNECTION_SECONDS * 1000,
    http: {
      // Node looks for timed-out requests every 30 s by default, which let a stalled one stay up to 90 s.
      connectionsCheckingInterval: 1000,
      // Node times a request whose headers are in by requestTimeout only when headersTimeout is below it:
      // with Node's default of 60 s, a body that never ended was cut at 60 s, not 30. A connection that
      // sends nothing is closed (408) at this deadline too.
      headersTimeout: HEADERS_TIMEOUT_SECONDS * 1000,
    },
    // Errors Node finds before routing (malformed HTTP, huge headers, the timeout above) get our error body too.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return socket.destroy();
      socket.end(clientErrorResponse(err as NodeJS.ErrnoException, options.version ?? VERSION));
      // end() only half-closes: a peer that never reads nor closes would keep the descriptor for ever.
      setTimeout(() => socket.destroy(), 1000).unref();
    },
  });
  const connections = new ConnectionLimit({
    ...(options.maxConnections ? { max: options.maxConnections } : {}),
    ...(options.version ? { version: options.version } : {}),
    ...(options.logger ? { log: options.logger } : {}),
  });
  connections.attach(app.server);
  // A request on a connection refused at the cap was answered 503 already: it is never handled.
  app.addHook('onRequest', (request, reply, done) => {
    if (!connections.refusedRequest(request.raw.socket)) return done();
    reply.hijack();
    request.raw.socket.destroy();
  });
  const gate = new QuietGate();
  const dispatcher = new Dispatcher({
    synthesizer: options.synthesizer,
    sink: options.sink,
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.maxQueue ? { maxQueue: options.maxQueue } : {}),
    ...(options.logger ? { log: options.logger } : {}),
    ...(options.journal ? { journal: options.journal } : {}),
    ...(options.voices ? { voices: options.voices } : {}),
    ...(options.recall ? { recall: options.recall } : {}),
    ...(options.attention ? { attention: options.attention } : {}),
    quiet: gate,
  });
  const quiet = options.quiet && startQuiet(options.quiet, gate, dispatcher, options.logger);

  const version = options.version ?? VERSION;
  const startedAt = performance.now();
  const resolve = (engine?: string): Promise<Engine> => options.synthesizer.resolve(engine);

  app.addHook('onRequest', guard(options.token, PUBLIC_PATHS));
  // Clients warn when the daemon they reach is older than they are.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-voxd-version', version);
  });
  app.setErrorHandler((err, request, reply) => {
    const wire = toWireError(err);
    // 503s (queue full, shutting down, no audio output) are states, logged where they arise; other 5xx are bugs.
    if (wire.statusCode >= 500 && wire.statusCode !== 503) request.log.error({ err }, 'request failed');
    reply.code(wire.statusCode).send(wire);
  });
  app.setNotFoundHandler((request, reply) => {
    const e = wireError('VOX_ERR_NOT_FOUND', `${request.method} ${request.url.split('?')[0]}`);
    reply.code(e.statusCode).send(e);
  });
  const listener = listenerSlot(async () => {
    const { Listener } = await import('./listen/listener.js');
    const l = options.listen ?? {
      home: '',
      recorder: 'auto',
      transcriber: { url: '', model: 'whisper-1', timeoutMs: 30_000 },
    };
    return new Listener({ dispatcher, sink: options.sink, ...l, ...(options.logger ? { log: options.logger } : {}) });
  }, options.listen);
  // Barge-in by voice is opt-in: off, its module is not loaded and nothing listens.
  const bargeIn =
    options.listen?.bargeIn === 'voice'
      ? await voiceBargeIn(dispatcher, options.listen, listener, options.logger)
      : undefined;
  // The microphone first (a listen holds the player), then drain speech before the sink and engines go away.
  app.addHook('onClose', async () => {
    quiet?.close();
    await bargeIn?.close();
    await listener.loaded()?.close();
    await dispatcher.close();
  });

  await app.register(statusRoutes, {
    dispatcher,
    sink: options.sink,
    defaultEngine: () => resolve(),
    version,
    startedAt,
    listener,
    ...(bargeIn ? { bargeIn } : {}),
    quiet: () => ({
      held: gate.held,
      reasons: gate.reasons(),
      mpris: quiet?.mpris.status() ?? { available: false, served: false, detail: 'not started (no desktop parts)' },
      microphone: quiet?.mic?.status() ?? { watch: 'none', detail: 'off (quiet.microphone)' },
    }),
  });
  await app.register(speakRoute, { dispatcher });
  await app.register(narrationRoute, {
    dispatcher,
    resolve: (engine, voice) => options.synthesizer.resolve(engine, voice),
  });
  await app.register(recallRoutes, { dispatcher });
  await app.register(focusRoutes, { dispatcher });
  await app.register(chimeRoute, { dispatcher });
  await app.register(stopRoute, { dispatcher, listener });
  await app.register(listenRoute, { listener, answered: (s) => dispatcher.attention.focus(s, 'voice') });
  await app.register(voicesRoute, { resolve });
  const inbox = new TalkInbox();
  app.addHook('preClose', async () => inbox.close());
  await app.register(talkRoute, { inbox, talked: (s) => dispatcher.attention.focus(s, 'talk') });
  const events = new EventStream({
    ...options.events,
    onDrop: () =>
      app.log.warn(
        { dropped: events.dropped },
        'event stream client fell behind and was cut off; it is told what it missed when it reconnects',
      ),
  });
  await app.register(eventsRoute, { dispatcher, stream: events });
  await app.register(synthesizeRoute, {
    synthesizer: options.synthesizer,
    prepare: dispatcher.prepare,
    ...(options.synthesizeMaxBytes ? { maxBytes: options.synthesizeMaxBytes } : {}),
  });
  return { app, dispatcher, events, listener, connections };
}

/** Quiet hours, the microphone watch and MPRIS, each holding or opening `gate`; closed together. */
function startQuiet(
  o: NonNullable<ServerOptions['quiet']>,
  gate: QuietGate,
  dispatcher: Dispatcher,
  logger?: FastifyBaseLogger,
) {
  const log = logger ? { log: logger } : {};
  const hours = o.hours ? new QuietHours(o.hours, gate) : undefined;
  const mic = o.microphone === 'off' ? undefined : new MicWatch({ gate, env: o.env, ...log });
  const mpris = new Mpris({ dispatcher, gate, env: o.env, ...log });
  return {
    mic,
    mpris,
    close() {
      mpris.close();
      mic?.close();
      hours?.close();
    },
  };
}

async function voiceBargeIn(
  dispatcher: Dispatcher,
  listen: NonNullable<ServerOptions['listen']>,
  listener: ListenerSlot,
  logger?: FastifyBaseLogger,
) {
  const [{ VoiceBargeIn }, { endPointers }] = await Promise.all([
    import('./listen/voice-barge-in.js'),
    import('./listen/silero.js'),
  ]);
  const log = logger ? { log: logger } : {};
  const env = listen.env ? { env: listen.env } : {};
  const vad = endPointers({ mode: listen.vad ?? 'auto', home: listen.home, ...env, ...log });
  return new VoiceBargeIn({
    dispatcher,
    recorder: listen.recorder,
    vad,
    micBusy: () => listener.loaded()?.status?.open === true,
    ...env,
    ...log,
  });
}
