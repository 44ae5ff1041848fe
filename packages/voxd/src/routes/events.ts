/** GET /v1/events: Server-Sent Events from the dispatcher, through EventStream (bounded per client). */
import type { FastifyPluginAsync } from 'fastify';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { EventStream } from '../event-stream.js';

const HEARTBEAT_MS = 15_000;

export const eventsRoute: FastifyPluginAsync<{ dispatcher: Dispatcher; stream?: EventStream }> = async (
  app,
  { dispatcher, stream = new EventStream() },
) => {
  dispatcher.on('event', (e) => stream.publish(e));
  const heartbeat = setInterval(() => stream.heartbeat(), HEARTBEAT_MS);
  heartbeat.unref();
  // preClose, not onClose: the server waits for open streams before onClose runs.
  app.addHook('preClose', async () => {
    clearInterval(heartbeat);
    stream.close();
  });
  app.get<{ Headers: { 'last-event-id'?: string } }>('/v1/events', async (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    // No chunked framing: each event is then one write of its shared buffer, with nothing
    // allocated per subscriber. The stream ends only when the connection does.
    res.useChunkedEncodingByDefault = false;
    res.shouldKeepAlive = false;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    });
    stream.subscribe(res, request.headers['last-event-id']);
    request.raw.on('close', () => stream.unsubscribe(res));
  });
};
