import type { FastifyPluginAsync } from 'fastify';
import type { HealthResponse, StatusResponse } from '@vox/protocol';
import type { Dispatcher } from '../dispatcher.js';
import type { Engine } from '../engines/engine.js';
import type { Sink } from '../sinks/sink.js';

export interface StatusDeps {
  dispatcher: Dispatcher;
  sink: Sink;
  defaultEngine: () => Promise<Engine>;
  version: string;
  startedAt: number;
}

export const statusRoutes: FastifyPluginAsync<StatusDeps> = async (app, deps) => {
  app.get('/v1/health', async (): Promise<HealthResponse> => ({ ok: true, version: deps.version }));

  app.get('/v1/status', async (): Promise<StatusResponse> => {
    const { dispatcher } = deps;
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
        items: dispatcher.queued.map((u) => ({ id: u.id, priority: u.priority, text: u.text, ...(u.session ? { session: u.session } : {}) })),
      },
      playing: playing
        ? { id: playing.id, priority: playing.priority, text: playing.text, startedAt: playing.entry.startedAt!, ...(playing.session ? { session: playing.session } : {}) }
        : null,
      counters: { ...dispatcher.counters },
      history: dispatcher.history(),
    };
  });
};
