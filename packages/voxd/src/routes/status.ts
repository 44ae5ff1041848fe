import type { FastifyPluginAsync } from 'fastify';
import type {
  AttentionStatusField,
  HealthResponse,
  ListeningStatus,
  NarratingStatusField,
  QuietStatus,
  QuietStatusField,
  SessionVoices,
  StatusResponse,
  TranscriberStatusField,
} from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { Engine } from '../engines/engine.js';
import type { Sink } from '../sinks/sink.js';
import type { ListenerSlot } from './listen.js';

/** Queue items in one status answer: a deep queue must not make it megabytes (docs/protocol.md). */
const STATUS_DEFAULT_LIMIT = 20;
const STATUS_MAX_LIMIT = 200;

export interface StatusDeps {
  dispatcher: Dispatcher;
  sink: Sink;
  defaultEngine: () => Promise<Engine>;
  version: string;
  startedAt: number;
  /** The listener, to say who holds the microphone (none loaded: nobody has listened yet). */
  listener?: ListenerSlot;
  /** Barge-in by voice (listen.bargeIn: voice): its recorder is open while vox speaks. */
  bargeIn?: { readonly status: ListeningStatus | null };
  /** Whether all speech is held and why (quiet/gate.ts), with MPRIS and the microphone watch. */
  quiet?: () => QuietStatus;
}

export const statusRoutes: FastifyPluginAsync<StatusDeps> = async (app, deps) => {
  // While it shuts down voxd is not healthy: a client that re-sends waits for the next voxd instead.
  app.get('/v1/health', async (_request, reply): Promise<HealthResponse> => {
    if (deps.dispatcher.closing) reply.code(503);
    return { ok: !deps.dispatcher.closing, version: deps.version };
  });

  app.get<{ Querystring: { offset?: string; limit?: string } }>(
    '/v1/status',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          // Strings of digits: voxd's ajv does not coerce types, and a query string has no numbers.
          properties: {
            offset: { type: 'string', pattern: '^[0-9]{1,7}$' },
            limit: { type: 'string', pattern: '^[0-9]{1,3}$' },
          },
        },
      },
    },
    async (
      request,
    ): Promise<
      StatusResponse &
        SessionVoices &
        TranscriberStatusField &
        NarratingStatusField &
        AttentionStatusField &
        QuietStatusField
    > => {
      const { dispatcher } = deps;
      const offset = Number(request.query.offset ?? 0);
      const limit = Math.min(Number(request.query.limit ?? STATUS_DEFAULT_LIMIT), STATUS_MAX_LIMIT);
      const engine = await deps.defaultEngine();
      const readiness = await engine.ready();
      const playing = dispatcher.playing;
      return {
        version: deps.version,
        pid: process.pid,
        uptimeMs: Math.round(performance.now() - deps.startedAt),
        engine: { name: engine.name, ready: readiness.ready, ...(readiness.ready ? {} : { reason: readiness.reason }) },
        sink: deps.sink.state(),
        queue: {
          length: dispatcher.queueLength,
          byPriority: dispatcher.queuedByPriority(),
          offset,
          limit,
          items: dispatcher.queuedPage(offset, limit).map((u) => ({
            id: u.id,
            priority: u.priority,
            text: u.text,
            ...(u.session ? { session: u.session } : {}),
          })),
        },
        playing: playing
          ? {
              id: playing.id,
              priority: playing.priority,
              text: playing.text,
              startedAt: playing.entry.startedAt!,
              ...(playing.session ? { session: playing.session } : {}),
            }
          : null,
        counters: { ...dispatcher.counters },
        history: dispatcher.history(),
        // A listen's floor first; else the barge-in monitor's open microphone.
        narrating: dispatcher.narrating(limit),
        listening: deps.listener?.loaded()?.status ?? deps.bargeIn?.status ?? null,
        sessionVoices: dispatcher.sessionVoices(),
        attention: dispatcher.attention.status(),
        ...(deps.quiet ? { quiet: deps.quiet() } : {}),
        ...((t) => (t ? { transcriber: t } : {}))(await deps.listener?.transcriber()),
      };
    },
  );
};
