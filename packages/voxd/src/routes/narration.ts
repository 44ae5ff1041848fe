import type { FastifyPluginAsync } from 'fastify';
import {
  narrationCutRequestSchema,
  narrationRequestSchema,
  narrationSessionRequestSchema,
  narrationWarmRequestSchema,
  type NarrationCutRequest,
  type NarrationWarmRequest,
  type NarrationWarmResponse,
  type NarrationCutResponse,
  type NarrationRequest,
  type NarrationResponse,
  type NarrationSessionRequest,
  type NarrationSessionResponse,
} from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { Engine } from '../engines/engine.js';

interface NarrationRouteOptions {
  dispatcher: Dispatcher;
  /** The engine a request with these settings gets (the synthesizer's resolve). */
  resolve(engine?: string, voice?: string): Promise<Engine>;
}

/**
 * POST /v1/narration (one batch of a message being written), POST
 * /v1/narration/cut (a new prompt) and POST /v1/narration/warm (a session
 * about to narrate: its engine started, so the first batch does not wait for
 * the embedded eSpeak's worker, 650 to 1,200 ms; started only for a session
 * that narrates, so voxd's idle memory stays as it was where nobody does),
 * and POST /v1/narration/session (how a session narrates, as its `vox mcp`
 * read the project's config: the vox mod's batches are taken by it).
 */
export const narrationRoute: FastifyPluginAsync<NarrationRouteOptions> = async (app, { dispatcher, resolve }) => {
  app.post<{ Body: NarrationRequest }>(
    '/v1/narration',
    { schema: { body: narrationRequestSchema } },
    async (request, reply): Promise<NarrationResponse> => {
      const b = request.body;
      const r = await dispatcher.narrate(b);
      request.log.info(
        {
          id: r.id,
          session: b.session,
          message: b.message,
          index: b.index,
          final: b.final,
          ...(b.source ? { source: b.source } : {}),
          status: r.status,
          sentences: r.sentences,
          ...(r.reason ? { reason: r.reason } : {}),
        },
        'narration',
      );
      reply.code(r.status === 'queued' ? 202 : 200);
      return r;
    },
  );
  app.post<{ Body: NarrationCutRequest }>(
    '/v1/narration/cut',
    { schema: { body: narrationCutRequestSchema } },
    async (request): Promise<NarrationCutResponse> => {
      const { session, earlier = [] } = request.body;
      const cut = [session, ...earlier].flatMap((s) => dispatcher.cutNarration(s));
      if (cut.length) request.log.info({ session, earlier, cut }, 'narration cut');
      return { cut };
    },
  );
  app.post<{ Body: NarrationSessionRequest }>(
    '/v1/narration/session',
    { schema: { body: narrationSessionRequestSchema } },
    async (request): Promise<NarrationSessionResponse> => {
      const b = request.body;
      dispatcher.declareNarration(b);
      request.log.info(
        { session: b.session, narrates: b.narrates, ...(b.reason ? { reason: b.reason } : {}) },
        'narration session',
      );
      return { narrates: b.narrates };
    },
  );
  app.post<{ Body: NarrationWarmRequest }>(
    '/v1/narration/warm',
    { schema: { body: narrationWarmRequestSchema } },
    async (request): Promise<NarrationWarmResponse> => {
      const { session, engine: requested, voice } = request.body;
      const t0 = performance.now();
      const engine = await resolve(requested, voice);
      const readiness = await engine.ready();
      // The voice's lookup (a job in the embedded engine's worker) is made once, here rather than at the first batch.
      if (readiness.ready && voice !== undefined) await engine.knowsVoice?.(voice).catch(() => undefined);
      request.log.info(
        { session, engine: engine.name, ready: readiness.ready, ms: Math.round(performance.now() - t0) },
        'narration warm',
      );
      return { engine: engine.name, ready: readiness.ready, ...(readiness.ready ? {} : { reason: readiness.reason }) };
    },
  );
};
