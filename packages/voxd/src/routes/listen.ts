import type { FastifyPluginAsync } from 'fastify';
import {
  listenReleaseRequestSchema,
  listenRequestSchema,
  type ListenReleaseRequest,
  type ListenReleaseResponse,
  type ListenRequest,
  type TranscriberStatus,
} from '@vox/protocol';
import { toWireError } from '../errors.js';
import type { Listener } from '../listen/listener.js';
import type { TranscriberConfig } from '../listen/transcriber.js';
import type { TranscriberKind } from '../listen/transcription.js';

/**
 * The listener, loaded on the first listen: capture, end-pointing and the
 * transcriber cost an idle voxd nothing (bench/listen.mjs measures its RSS).
 */
export interface ListenerSlot {
  /** The listener if a listen has loaded it, else undefined (nothing to stop or close). */
  loaded(): Listener | undefined;
  load(): Promise<Listener>;
  /** What a listen would transcribe with now (GET /v1/status); undefined without voice input's settings. */
  transcriber(): Promise<TranscriberStatus | undefined>;
}

export function listenerSlot(
  make: () => Promise<Listener>,
  settings?: { home: string; transcriber: TranscriberConfig & { kind?: TranscriberKind } },
): ListenerSlot {
  let listener: Listener | undefined;
  let loading: Promise<Listener> | undefined;
  return {
    loaded: () => listener,
    load: () => (loading ??= make().then((l) => (listener = l))),
    // Not the listener: status must not load capture and end-pointing. The manifest is read, not the model.
    transcriber: async () =>
      settings
        ? (await import('../listen/transcription.js')).describeTranscriber(settings.transcriber, settings.home)
        : undefined,
  };
}

export const listenRoute: FastifyPluginAsync<{
  listener: ListenerSlot;
  /** A session answered by voice: the person is in it (dispatch/attention.ts). */
  answered?: (session: string) => void;
}> = async (app, { listener, answered }) => {
  app.post<{ Body: ListenRequest | undefined }>(
    '/v1/listen',
    {
      schema: { body: listenRequestSchema },
      // No body means every default.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const l = await listener.load();
      // A client that goes away ends its listen: the microphone is released at once.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      try {
        const result = await l.listen(request.body ?? {}, gone.signal);
        request.log.info(
          { session: request.body?.session, endedBy: result.endedBy, transcribed: result.transcribed },
          'listen',
        );
        if (result.transcribed && request.body?.session) answered?.(request.body.session);
        return result;
      } catch (err) {
        const audioPath = (err as { audioPath?: string }).audioPath;
        if (audioPath === undefined) throw err;
        // The audio captured before the failure is part of the answer.
        const wire = toWireError(err);
        return reply.code(wire.statusCode).send({ ...wire, audioPath });
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  // Hand a kept floor on before its idle expiry. No listener loaded: no floor was ever kept.
  app.post<{ Body: ListenReleaseRequest }>(
    '/v1/listen/release',
    { schema: { body: listenReleaseRequestSchema } },
    async (request): Promise<ListenReleaseResponse> => {
      const released = listener.loaded()?.release(request.body.token) ?? false;
      request.log.info({ released }, 'floor release');
      return { released };
    },
  );
};
