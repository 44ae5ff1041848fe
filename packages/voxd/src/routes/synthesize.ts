import type { FastifyPluginAsync } from 'fastify';
import { synthesizeRequestSchema, type SynthesizeRequest } from '@vox/protocol';
import type { Synthesizer } from '../synthesis/synthesizer.js';
import { EngineError } from '../engines/engine.js';
import { VoxError } from '../errors.js';
import { record, RecordingSlots } from '../synthesis/recording.js';
import type { PrepareFn } from '../text/preparer.js';

export const synthesizeRoute: FastifyPluginAsync<{
  synthesizer: Synthesizer;
  prepare: PrepareFn;
  /** Most PCM bytes one answer holds (synthesis/recording.ts's MAX_RECORDING_BYTES by default). */
  maxBytes?: number;
}> = async (app, { synthesizer, prepare, maxBytes }) => {
  const slots = new RecordingSlots();
  app.post<{ Body: SynthesizeRequest }>(
    '/v1/synthesize',
    {
      schema: { body: synthesizeRequestSchema },
    },
    async (request, reply) => {
      const release = await slots.take();
      if (!release) {
        reply.header('retry-after', '1');
        throw new VoxError('VOX_ERR_SYNTHESIZE_BUSY', slots.max, slots.maxWaiting);
      }
      const req = request.body;
      const rec = await record(synthesizer, prepare, req, undefined, maxBytes)
        .catch((err: Error & { code?: string }) => {
          // An engine's own words go inside the catalogue's sentence, as they did before they had a code (engines/engine.ts).
          if (err.code?.startsWith('VOX_ERR_') && !(err instanceof EngineError)) throw err;
          throw new VoxError('VOX_ERR_SYNTHESIS_FAILED', err.message);
        })
        .finally(release);
      reply.header('content-type', 'audio/wav').header('x-vox-engine', rec.engine);
      if (rec.fallbackReason) reply.header('x-vox-fallback-reason', rec.fallbackReason.replace(/[^\x20-\x7e]/g, '?'));
      return reply.send(rec.wav);
    },
  );
};
