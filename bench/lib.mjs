// Shared helpers for the benchmarks: a real voxd in a temp VOX_HOME, timing, stats.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const VOXD = join(ROOT, 'packages/voxd/dist/main.js');
export const VOX = join(ROOT, 'packages/vox-mcp/dist/vox.cjs');

export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VOX|VOXD|CLAUDE|OPENAI|ELEVENLABS)_/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
export const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

export function report(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/** Wall time of one run of a command, in ms. */
export function timeRun(cmd, args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export async function startVoxd({ audio = 'null', env = {} } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'vox-bench-'));
  const fullEnv = cleanEnv({ VOX_HOME: home, VOXD_PORT: '0', VOXD_AUDIO: audio, VOXD_ENGINE: 'espeak', ...env });
  const proc = spawn(process.execPath, [VOXD], { env: fullEnv, stdio: 'ignore' });
  let state;
  for (let i = 0; i < 400 && !state; i++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      const s = JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8'));
      if (s.pid === proc.pid) state = s;
    } catch {
      // not yet
    }
  }
  if (!state) throw new Error('voxd did not start');
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const api = (method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        { host: '127.0.0.1', port: state.port, method, path, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    home,
    env: fullEnv,
    pid: proc.pid,
    port: state.port,
    api,
    async idle() {
      for (;;) {
        const s = await api('GET', '/v1/status');
        if (s.body.queue.length === 0 && !s.body.playing) return s.body;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Resident set size of a process, in MB. */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
