// voxd's memory under stalled event-stream clients: 20 clients open
// GET /v1/events and never read, while 50,000 events are produced (each a
// deduplicated speak request: one `deduped` event each). Budget: RSS within
// 20 MB of the start.
// Baseline, in the same run: the same 50,000 requests to a fresh voxd with no
// event clients. Serving 50,000 requests grows V8's heap once (about 60 MB on
// Node 20, the same after 150,000), with or without clients, so the figure
// that belongs to the stalled clients is the difference of the two growths.
import { connect } from 'node:net';
import { request } from 'node:http';
import { report, round, rssMb, startVoxd } from './lib.mjs';

const CLIENTS = 20;
const EVENTS = 50_000;
const CONCURRENCY = 32;

async function run(clients) {
  const d = await startVoxd({ audio: 'null' });
  const token = d.token;
  const { speak, close: closeFlooder } = d.flooder(CONCURRENCY);

  const stalled = [];
  try {
    // The original, played once; every later copy is a duplicate (one event each).
    const text = 'The deploy to staging finished without errors';
    await speak({ text, once: 3600 });
    await d.idle();
    for (let i = 0; i < 200; i++) await speak({ text, once: 3600 });
    const startRss = rssMb(d.pid);
    for (let i = 0; i < clients; i++) {
      const s = connect(d.port, '127.0.0.1');
      s.on('error', () => {});
      s.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      s.pause();
      stalled.push(s);
    }
    let sent = 0;
    let peak = startRss;
    const worker = async () => {
      while (sent < EVENTS) {
        sent++;
        const status = await speak({ text, once: 3600 });
        if (status !== 200) throw new Error(`a duplicate answered ${status}`);
        if (sent % 2000 === 0) peak = Math.max(peak, rssMb(d.pid));
      }
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const ms = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 1000));
    const endRss = rssMb(d.pid);
    peak = Math.max(peak, endRss);
    const status = await new Promise((resolve) => {
      const req = request(
        { host: '127.0.0.1', port: d.port, path: '/v1/status', headers: { authorization: `Bearer ${token}` } },
        (res) => {
          let t = '';
          res
            .setEncoding('utf8')
            .on('data', (c) => (t += c))
            .on('end', () => resolve(JSON.parse(t)));
        },
      );
      req.end();
    });
    return { events: sent, ms, startRss, peak, endRss, deduped: status.counters?.deduped };
  } finally {
    for (const s of stalled) s.destroy();
    closeFlooder();
    await d.stop();
  }
}

const without = await run(0);
const withClients = await run(CLIENTS);
const growth = (r) => r.peak - r.startRss;
const sse = growth(withClients) - growth(without);
report({
  bench: `voxd RSS under ${CLIENTS} stalled SSE clients and ${EVENTS} events`,
  events: withClients.events,
  startRssMb: round(withClients.startRss, 1),
  peakRssMb: round(withClients.peak, 1),
  growthMb: round(growth(withClients), 1),
  baselineGrowthMb: round(growth(without), 1),
  stalledClientsMb: round(sse, 1),
  budgetMb: 20,
  withinBudget: sse <= 20,
});
