import type { FastifyPluginAsync } from 'fastify';
import { synthesizeRequestSchema, type SynthesizeRequest } from '@vox/protocol';
import type { Synthesizer } from '../dispatcher.js';
import { VoxError } from '../errors.js';
import { record } from '../recording.js';
import type { PrepareFn } from '../text/preparer.js';

export const synthesizeRoute: FastifyPluginAsync<{
  synthesizer: Synthesizer;
  prepare: PrepareFn;
}> = async (app, { synthesizer, prepare }) => {
  app.post<{ Body: SynthesizeRequest }>(
    '/v1/synthesize',
    {
      schema: { body: synthesizeRequestSchema },
    },
    async (request, reply) => {
      const rec = await record(synthesizer, prepare, request.body).catch((err: Error & { code?: string }) => {
        if (err.code?.startsWith('VOX_ERR_')) throw err;
        throw new VoxError('VOX_ERR_SYNTHESIS_FAILED', err.message);
      });
      reply.header('content-type', 'audio/wav').header('x-vox-engine', rec.engine);
      if (rec.fallbackReason) reply.header('x-vox-fallback-reason', rec.fallbackReason.replace(/[^\x20-\x7e]/g, '?'));
      return reply.send(rec.wav);
    },
  );
};
