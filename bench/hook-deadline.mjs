// `vox hook` against a trickling server: exits 0 within its deadline.
// A fake voxd on 127.0.0.1 answers one byte every 500 ms, so no idle timeout
// ever fires; the hook's total deadline (2.5 s, docs/cli.md "Deadlines") must.
// Baseline: the same hook against a closed port with autostart off (refused at once).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cleanEnv, median, report, ROOT, round, VOX } from './lib.mjs';

const DEADLINE_MS = 2500;
const RUNS = Number(process.env.BENCH_RUNS || 3);
const home = mkdtempSync(join(tmpdir(), 'vox-bench-hook-deadline-'));
const payload = readFileSync(join(ROOT, 'test/fixtures/hooks/notification-idle.json'), 'utf8');

const sockets = new Set();
const server = createServer((socket) => {
  sockets.add(socket);
  socket.on('error', () => {});
  socket.once('data', () => {
    const answer = Buffer.from('HTTP/1.1 200 OK\r\nx-voxd-version: 0.1.0\r\ncontent-length: 100\r\n\r\n');
    let i = 0;
    const t = setInterval(
      () =>
        socket.destroyed
          ? clearInterval(t)
          : socket.write(answer.subarray(i % answer.length, (i++ % answer.length) + 1)),
      500,
    );
    socket.on('close', () => clearInterval(t));
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const closed = createServer();
await new Promise((r) => closed.listen(0, '127.0.0.1', r));
const closedPort = closed.address().port;
await new Promise((r) => closed.close(r));

function run(env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [VOX, 'hook', 'Notification'], {
      env: cleanEnv({ VOX_HOME: home, ...env }),
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`vox hook exited ${code}: ${stderr}`));
      else resolve(ms);
    });
    child.stdin.end(payload);
  });
}

const trickle = [];
const baseline = [];
for (let i = 0; i < RUNS; i++) {
  baseline.push(await run({ VOXD_PORT: String(closedPort), VOX_NO_AUTOSTART: '1' }));
  trickle.push(await run({ VOXD_PORT: String(port) }));
}
for (const s of sockets) s.destroy();
server.close();
rmSync(home, { recursive: true, force: true });
const worst = Math.max(...trickle);
report({
  bench: 'hook-deadline',
  what: '`vox hook` against a trickling server: exits 0 within its deadline',
  deadlineMs: DEADLINE_MS,
  trickleMedianMs: round(median(trickle)),
  trickleMaxMs: round(worst),
  refusedMedianMs: round(median(baseline)),
  maxOverDeadline: round(worst / DEADLINE_MS),
  withinDeadline: worst <= DEADLINE_MS + median(baseline),
});
