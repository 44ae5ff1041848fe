/**
 * `vox status [--json] [--watch]`: voxd's state, queue and recent history.
 * `--watch` follows GET /v1/events: a compact live view on a TTY, one plain
 * line per event when piped.
 */
import { request as httpRequest } from 'node:http';
import { VERSION, type StatusResponse, type VoxEvent } from '@vox/protocol';
import { call, resolveEndpoint } from '../client.js';
import { defineCommand } from '../command.js';
import { EXIT, type CliContext } from '../context.js';
import { compareVersions, reportThrown, reportWireError } from '../report.js';

const USAGE = `Usage: vox status [--json] [--watch]

  --json        print the raw status
  -w, --watch   follow the queue live (Ctrl-C to quit)
  -h, --help    show this help
`;

function clip(text: string, n = 60): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

export function formatStatus(s: StatusResponse, clientVersion = VERSION): string {
  const lines = [
    `voxd ${s.version} (client ${clientVersion}${s.version !== clientVersion ? ', versions differ: run "vox daemon restart"' : ''}), pid ${s.pid}, up ${Math.round(s.uptimeMs / 1000)} s`,
    `engine: ${s.engine.name} ${s.engine.ready ? 'ready' : `NOT READY: ${s.engine.reason}`}`,
    `audio:  ${s.sink.name} ${s.sink.ok ? 'ok' : 'FAILING'}${s.sink.detail ? ` (${s.sink.detail})` : ''}${s.sink.lastError ? ` last error: ${s.sink.lastError}` : ''}`,
    `counts: accepted ${s.counters.accepted}, played ${s.counters.played}, deduped ${s.counters.deduped}, failed ${s.counters.failed}, expired ${s.counters.expired}, interrupted ${s.counters.interrupted}, dropped ${s.counters.dropped}`,
    `now:    ${s.playing ? `[${s.playing.priority}] ${s.playing.session ?? '-'}: ${clip(s.playing.text)}` : 'silent'}`,
    `queue:  ${s.queue.length}`,
    ...s.queue.items.slice(0, 10).map((q) => `  [${q.priority}] ${q.session ?? '-'}: ${clip(q.text)}`),
    'recent:',
    ...s.history.slice(0, 10).map((h) => `  ${h.acceptedAt.slice(11, 19)} ${h.outcome.padEnd(11)} ${(h.session ?? '-').padEnd(16)} ${clip(h.text, 50)}${h.reason ? ` (${h.reason})` : ''}`),
  ];
  return `${lines.join('\n')}\n`;
}

export const command = defineCommand({
  name: 'status',
  usage: USAGE,
  flags: { json: { type: 'boolean' }, watch: { type: 'boolean', short: 'w' } },
  async run({ ctx, flags: values }) {
    const env = { ...ctx.env, VOX_NO_AUTOSTART: ctx.env.VOX_NO_AUTOSTART ?? '1' };
    try {
      const reply = await call<StatusResponse>(env, 'GET', '/v1/status');
      if (reply.status !== 200) return reportWireError(ctx, 'status', reply.status, reply.body);
      if (!values.watch) {
        ctx.stdout.write(values.json ? `${JSON.stringify(reply.body)}\n` : formatStatus(reply.body));
        if (compareVersions(reply.body.version, VERSION) < 0) ctx.stderr.write(`vox status: voxd ${reply.body.version} is older than this client (${VERSION}); run "vox daemon restart"\n`);
        return EXIT.OK;
      }
      return await watch(ctx, env);
    } catch (err) {
      return reportThrown(ctx, 'status', err);
    }
  },
});
export const run = command.run;

/** Follow the event stream until it ends. */
export function followEvents(env: NodeJS.ProcessEnv, onEvent: (e: VoxEvent) => void, signal?: AbortSignal): Promise<void> {
  const endpoint = resolveEndpoint(env);
  return new Promise((resolve, reject) => {
    if (!endpoint) return reject(new Error('voxd is not running'));
    const req = httpRequest(
      { host: endpoint.host, port: endpoint.port, path: '/v1/events', headers: endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : {}, ...(signal ? { signal } : {}) },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode} from /v1/events`));
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (d: string) => {
          buf += d;
          let i;
          while ((i = buf.indexOf('\n\n')) !== -1) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (data) onEvent(JSON.parse(data.slice(6)) as VoxEvent);
          }
        });
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', (err) => ((err as Error).name === 'AbortError' ? resolve() : reject(err)));
    req.end();
  });
}

async function watch(ctx: CliContext, env: NodeJS.ProcessEnv): Promise<number> {
  const tty = ctx.stdout.isTTY === true;
  const render = async () => {
    const r = await call<StatusResponse>(env, 'GET', '/v1/status');
    if (r.status === 200) ctx.stdout.write(`\x1b[2J\x1b[H${formatStatus(r.body)}`);
  };
  if (tty) await render();
  await followEvents(env, (e) => {
    if (tty) void render();
    else ctx.stdout.write(`${e.at} ${e.type} ${e.id} ${e.priority} ${e.session ?? '-'}${e.reason ? ` ${e.reason}` : ''}${e.originalId ? ` of ${e.originalId}` : ''}\n`);
  });
  return EXIT.OK;
}
