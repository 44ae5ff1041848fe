/** GET /v1/events: Server-Sent Events, one per dispatcher event, with a heartbeat comment. */
import type { FastifyPluginAsync } from 'fastify';
import type { VoxEvent } from '@vox/protocol';
import type { Dispatcher } from '../dispatcher.js';

const HEARTBEAT_MS = 15_000;

export const eventsRoute: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  const open = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const end of open) end();
  });
  app.get('/v1/events', async (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    const onEvent = (e: VoxEvent) => {
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    };
    dispatcher.on('event', onEvent);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const cleanup = () => {
      clearInterval(heartbeat);
      dispatcher.off('event', onEvent);
      open.delete(end);
    };
    const end = () => {
      cleanup();
      res.end();
    };
    open.add(end);
    request.raw.on('close', cleanup);
  });
};
