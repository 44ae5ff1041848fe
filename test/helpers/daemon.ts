/**
 * Test harness: start the real voxd binary on port 0 with a temp VOX_HOME and
 * the file sink, speak real HTTP to it, and run the real `vox` binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { Writable } from 'node:stream';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSetting } from '../../packages/protocol/src/settings.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const VOXD = join(ROOT, 'packages/voxd/dist/main.js');
/** The `vox` bin as installed: the bundled CommonJS file. */
export const VOX = join(ROOT, 'packages/vox-mcp/dist/vox.cjs');
/** Test inputs kept in the repository (see test/fixtures/README.md). */
export const FIXTURES = join(ROOT, 'test', 'fixtures');

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export function http<T = any>(
  port: number,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string } = {},
): Promise<Reply<T>> {
  return new Promise((resolve, reject) => {
    const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // leave as text
        }
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export interface Daemon {
  home: string;
  out: string;
  port: number;
  token: string;
  pid: number;
  proc: ChildProcess;
  env: NodeJS.ProcessEnv;
  stderr(): string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** Wait until nothing is queued or playing. */
  idle(timeoutMs?: number): Promise<any>;
  wavs(): string[];
  stop(): Promise<number | null>;
}

/** A fresh directory under TMPDIR; removed when the test file ends if the test did not. */
export function tempDir(prefix = 'vox-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.add(dir);
  return dir;
}

/*
 * Safety net for a test that fails before its own clean-up: when the file's
 * tests are over (passed or not), stop every voxd this helper started, any
 * voxd a client started with its VOX_HOME in one of our temp dirs, and remove
 * those dirs. Tests still clean up after themselves; this keeps a failure from
 * leaking a listening daemon or a directory.
 */
const running = new Set<Daemon>();
const madeDirs = new Set<string>();
after(async () => {
  await Promise.all([...running].map((d) => d.stop()));
  for (const dir of madeDirs) {
    await stopDaemonsUnder(dir);
    removeDir(dir);
  }
});
process.on('exit', () => {
  for (const d of running) d.proc.kill('SIGKILL');
});

/** Pids of processes whose VOX_HOME is `dir` or under it, from /proc (Linux). */
function daemonsUnder(dir: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const pid of pids) {
    try {
      const home = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((kv) => kv.startsWith('VOX_HOME='))
        ?.slice('VOX_HOME='.length);
      if (home && (home === dir || home.startsWith(dir + sep))) found.push(Number(pid));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/**
 * Stop every process running with its VOX_HOME in `dir` (a voxd that `vox`
 * autostarted, say): SIGTERM, then SIGKILL after 5 s. For a test's finally,
 * so that a failed assertion does not leave that daemon listening.
 */
export async function stopDaemonsUnder(dir: string): Promise<void> {
  const pids = daemonsUnder(dir);
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
}

/** Running: a zombie waiting to be reaped counts as gone (Linux: reads /proc/PID/stat). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Signalable: a zombie still counts, so its group can be signalled until it is reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/**
 * Environment for a client or daemon bound to `home`, without the caller's VOX*
 * settings. voxd's settings file is `home/config/voxd.yaml` (VOX_CONFIG_HOME),
 * never the user's own.
 */
export function cleanEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // No stray settings or cloud keys from the machine running the tests; VOX_TEST_RUN
  // stays, so that scripts/test.mjs can find whatever this run started.
  for (const [k, v] of Object.entries(process.env))
    if (k === 'VOX_TEST_RUN' || !/^(VOX|VOXD|CLAUDE|OPENAI|ELEVENLABS)_/.test(k)) env[k] = v;
  return { ...env, VOX_HOME: home, VOX_CONFIG_HOME: join(home, 'config'), ...extra };
}

/**
 * Write voxd's settings file for `env` (its VOX_CONFIG_HOME): what a voxd that
 * a client auto-starts uses, since clients do not pass VOXD_AUDIO and the like on.
 */
export function writeSettings(env: NodeJS.ProcessEnv, settings: Record<string, string | number>): string {
  const dir = env.VOX_CONFIG_HOME;
  if (!dir) throw new Error('writeSettings needs VOX_CONFIG_HOME in env (cleanEnv sets it)');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'voxd.yaml');
  writeFileSync(
    file,
    Object.entries(settings)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}\n`)
      .join(''),
  );
  return file;
}

export async function waitFor<T>(
  fn: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `wrap`: a command voxd runs under, which execs it (`['prlimit', '--nofile=256:256', '--']`). */
export async function startDaemon(
  options: {
    audio?: string;
    realtime?: boolean;
    env?: NodeJS.ProcessEnv;
    home?: string;
    args?: string[];
    wrap?: string[];
  } = {},
): Promise<Daemon> {
  const home = options.home ?? tempDir();
  const out = join(home, 'out');
  const audio = options.audio ?? `file:${out}${options.realtime === false ? '?realtime=0' : ''}`;
  // The embedded engine unless a test asks otherwise: the system espeak-ng may be installed too.
  const env = cleanEnv(home, { VOXD_PORT: '0', VOXD_AUDIO: audio, VOXD_ENGINE: 'espeak', ...(options.env ?? {}) });
  // A voxd that a client auto-starts later (after a crash, say) reads the settings
  // file, not the client's VOXD_*: give it the same sink and engine.
  const same: Record<string, string> = {};
  for (const [key, variable] of [
    ['audio', 'VOXD_AUDIO'],
    ['engine', 'VOXD_ENGINE'],
  ] as const) {
    const value = env[variable];
    if (value && !checkSetting(key, value, variable)) same[key] = value;
  }
  if (Object.keys(same).length) writeSettings(env, same);
  const argv = [process.execPath, VOXD, ...(options.args ?? [])];
  const proc = options.wrap?.length
    ? spawn(options.wrap[0]!, [...options.wrap.slice(1), ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  let state: { port: number };
  try {
    state = await waitFor(
      () => {
        if (proc.exitCode !== null) throw new Error(`voxd exited with ${proc.exitCode}: ${stderr}`);
        try {
          const s = JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8'));
          return s.pid === proc.pid ? s : undefined;
        } catch {
          return undefined;
        }
      },
      20_000,
      'voxd.json',
    );
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    throw err;
  }
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const d: Daemon = {
    home,
    out,
    port: state.port,
    token,
    pid: proc.pid!,
    proc,
    env,
    stderr: () => stderr,
    api: (method, path, body) => http(state.port, method, path, { body, token }),
    async idle(timeoutMs = 60_000) {
      return waitFor(
        async () => {
          const s = await d.api('GET', '/v1/status');
          return s.body.queue.length === 0 && s.body.playing === null ? s.body : undefined;
        },
        timeoutMs,
        'voxd to go idle',
      );
    },
    wavs: () =>
      existsSync(out)
        ? readdirSync(out)
            .filter((f) => f.endsWith('.wav'))
            .sort()
            .map((f) => join(out, f))
        : [],
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        // A voxd that does not exit on SIGTERM is a failure of its test, never a hang of the file.
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      running.delete(d);
      return exited;
    },
  };
  running.add(d);
  return d;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Stops the voxds started under each of `homes`, all at once, then removes them (a test file's
 * clean-up): one by one, each voxd's SIGTERM-to-exit (up to 5 s under load) adds up past the file's
 * 30 s grace (scripts/test-file-exit.mjs).
 */
export async function removeHomes(homes: readonly string[]): Promise<void> {
  await Promise.all(homes.map((h) => stopDaemonsUnder(h)));
  for (const h of homes) removeDir(h);
}

/** Run the real `vox` binary. */
export function vox(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    cwd?: string;
    input?: string;
    /** Writes stdin itself, as it likes (streamed, never closed); the pipe's EPIPE once vox stops reading is ignored. */
    feed?: (stdin: Writable) => void;
    timeoutMs?: number;
  },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const piped = options.input !== undefined || options.feed !== undefined;
    const child = spawn(process.execPath, [VOX, ...args], {
      env: options.env,
      cwd: options.cwd ?? ROOT,
      stdio: [piped ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (options.feed) {
      child.stdin!.on('error', () => undefined);
      options.feed(child.stdin!);
    } else if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** Writes DIR/.vox/config.md with this front matter: a project for the hook tests. */
export function writeConfig(dir: string, frontMatter: string): void {
  mkdirSync(join(dir, '.vox'), { recursive: true });
  writeFileSync(join(dir, '.vox', 'config.md'), `---\n${frontMatter}\n---\n`);
}
