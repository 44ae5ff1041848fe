/**
 * The client side of the wire: call voxd (http.ts), and start it when nothing
 * answers. A spawn lock in VOX_HOME makes the clients that arrive at once
 * start one voxd.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { DEFAULT_HOST, DEFAULT_PORT, homePaths, makeDirs, voxHome } from '@vox/protocol';
import { ClientError } from '../errors.js';
import {
  daemonStateFile,
  healthAt,
  linkEndpoint,
  readDaemonState,
  request,
  resolveEndpoint,
  tokenFile,
  type Endpoint,
  type Reply,
} from './http.js';
import { readStopMarker } from './stop-marker.js';
import { callRemote } from '../remote/remote-call.js';

async function voxdEntry(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.VOXD_BIN) return env.VOXD_BIN;
  // createRequire works both in the ESM build and in the bundled CJS bin.
  // Loaded only here, like node:child_process: most runs find voxd already up.
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url).resolve('voxd/main');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a call waits for the running voxd to rewrite a spoiled token file: its periodic look (2 s) and a margin. */
const TOKEN_HEAL_MS = 2500;

/**
 * voxd's settings that an auto-started voxd must not take from the client that
 * happens to start it: its settings file decides (docs/operations.md). VOXD_PORT
 * and VOXD_HOST stay: they say where this client looks for the voxd it starts.
 */
export const DAEMON_SETTING_VARIABLES = [
  'VOXD_AUDIO',
  'VOXD_ENGINE',
  'VOXD_LOG_LEVEL',
  'VOXD_RECORDER',
  'VOXD_VAD',
  'VOXD_BARGE_IN',
  'VOXD_TRANSCRIBER_KIND',
  'VOXD_TRANSCRIBER_URL',
  'VOXD_TRANSCRIBER_MODEL',
  'VOXD_TRANSCRIBER_TIMEOUT_MS',
  'VOXD_SHERPA_IDLE_UNLOAD_MS',
] as const;

/**
 * Whether a variable of a client's environment is a secret that an auto-started
 * voxd must not inherit: every cloud key (OPENAI_API_KEY, ELEVENLABS_API_KEY,
 * and any other *_API_KEY). voxd takes its keys from VOX_HOME/keys.env.
 */
export function isSecretVariable(name: string): boolean {
  return /_API_KEY$/.test(name);
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65535;
}

export interface StartOptions {
  /** How long to wait for voxd to answer, in ms. Default 15000. */
  timeoutMs?: number;
  /**
   * Pass this environment's DAEMON_SETTING_VARIABLES on (an
   * explicit "vox daemon start|restart" from a shell). Default false: an
   * auto-started voxd takes them from its settings file.
   */
  passSettings?: boolean;
  /** Do not start one: wait for the voxd that another is starting ("vox daemon restart"). */
  noSpawn?: boolean;
}

/** How voxd ended when it exited before it answered. */
interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  stderr: string;
}

/** voxd's own lines (without its "voxd: " prefix), or a description of how it ended. */
function describeExit(exit: Exit): string {
  if (exit.error) return `voxd could not be started: ${exit.error.message}`;
  const how = exit.code !== null ? `voxd exited with code ${exit.code}` : `voxd was killed by ${exit.signal}`;
  const said = exit.stderr
    .trim()
    .split('\n')
    .map((l) => l.replace(/^voxd: /, ''))
    .join('\n')
    .trim();
  return said
    ? `${how} before it listened: ${said}`
    : `${how} before it listened, without a message; see VOX_HOME/logs/voxd.log`;
}

/**
 * Start voxd detached and wait until it answers. A spawn lock in VOX_HOME makes
 * eight clients that arrive at once start one daemon; the others wait for it.
 * voxd's stderr is a pipe read until it answers: when voxd exits first, the
 * caller gets voxd's own message at once (VOX_ERR_CLIENT_DAEMON_EXITED), not a
 * timeout. An unusable VOX_HOME does not stop the attempt: voxd names the problem.
 */
export async function startDaemon(env: NodeJS.ProcessEnv, options: StartOptions | number = {}): Promise<Endpoint> {
  const opts = typeof options === 'number' ? { timeoutMs: options } : options;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const paths = homePaths(voxHome(env));
  let homeUsable = true;
  try {
    makeDirs(paths.home, 0o700);
  } catch {
    homeUsable = false;
  }
  const deadline = Date.now() + timeoutMs;
  let child: import('node:child_process').ChildProcess | undefined;
  let exit: Exit | undefined;
  let lockFd: number | undefined;
  let stderr = '';
  try {
    while (Date.now() < deadline) {
      let endpoint = resolveEndpoint(env);
      // voxd said another one holds the port (exit 3) but no voxd.json says where (absent or
      // corrupt): that one listens on the default port. health() checks it is voxd.
      if (!endpoint && exit?.code === 3 && !env.VOXD_URL && !env.VOXD_PORT)
        endpoint = { host: env.VOXD_HOST || DEFAULT_HOST, port: DEFAULT_PORT, token: undefined, source: 'default' };
      if (endpoint && validPort(endpoint.port) && (await healthAt(endpoint, 500))) return withToken(endpoint, env);
      if (exit) {
        // voxd said another one runs for this VOX_HOME (exit 3): wait for that one.
        if (exit.code !== 3) throw new ClientError('VOX_ERR_CLIENT_DAEMON_EXITED', describeExit(exit));
      } else if (!child && lockFd === undefined && !opts.noSpawn) {
        let lockProblem = !homeUsable;
        if (homeUsable) {
          try {
            lockFd = openSync(paths.spawnLock, 'wx', 0o600);
            writeSync(lockFd, String(process.pid));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') lockProblem = true;
            // A lock older than the start timeout belongs to a client that died.
            else {
              try {
                if (Date.now() - statSync(paths.spawnLock).mtimeMs > timeoutMs)
                  rmSync(paths.spawnLock, { force: true });
              } catch {
                // gone already
              }
            }
          }
        }
        if (lockFd !== undefined || lockProblem) {
          // Loaded only here: most runs find voxd already up.
          const { spawn } = await import('node:child_process');
          const childEnv = { ...env };
          if (!opts.passSettings) for (const k of DAEMON_SETTING_VARIABLES) delete childEnv[k];
          // Never a client's cloud keys, even for "vox daemon start": voxd's keys are its keys.env.
          for (const k of Object.keys(childEnv)) if (isSecretVariable(k)) delete childEnv[k];
          const started = spawn(process.execPath, [await voxdEntry(env)], {
            detached: true,
            stdio: ['ignore', 'ignore', 'pipe'],
            env: childEnv,
          });
          child = started;
          started.stderr!.setEncoding('utf8').on('data', (d: string) => {
            if (stderr.length < 16_384) stderr += d;
          });
          const closed = new Promise<void>((r) => started.stderr!.once('close', () => r()));
          const ended = (e: Omit<Exit, 'stderr'>) => {
            // The last lines may still be in the pipe: read them, but do not hang on a grandchild holding it.
            void Promise.race([closed, sleep(250)]).then(() => (exit = { ...e, stderr }));
          };
          started.once('exit', (code, signal) => ended({ code, signal }));
          started.once('error', (error) => ended({ code: null, signal: null, error }));
        }
      }
      await sleep(50);
    }
  } finally {
    if (lockFd !== undefined) {
      closeSync(lockFd);
      rmSync(paths.spawnLock, { force: true });
    }
    // voxd lives on without us: let go of its stderr and of the handle.
    if (child) {
      child.stderr?.destroy();
      child.unref();
    }
  }
  if (exit) throw new ClientError('VOX_ERR_CLIENT_DAEMON_EXITED', describeExit(exit));
  if (opts.noSpawn)
    throw new ClientError(
      'VOX_ERR_CLIENT_DAEMON_START_FAILED',
      `voxd is being restarted ("vox daemon restart") and the new one did not answer within ${Number((timeoutMs / 1000).toFixed(1))} s; see ${paths.logs}`,
    );
  throw new ClientError(
    'VOX_ERR_CLIENT_DAEMON_START_FAILED',
    `voxd did not answer within ${Number((timeoutMs / 1000).toFixed(1))} s after being started (it may still be starting); run "voxd" in a terminal to see why, or check ${paths.logs}`,
  );
}

/** The endpoint with the token read now (a voxd that just started may have written a new one). */
function withToken(endpoint: Endpoint, env: NodeJS.ProcessEnv): Endpoint {
  const { token, problem } = tokenFile(env);
  const { tokenProblem: _old, ...rest } = endpoint;
  return { ...rest, token, ...(problem ? { tokenProblem: problem } : {}) };
}

let mismatchTold = false;

/**
 * When this environment asks for an audio sink or engine other than the one
 * the running voxd uses, one line that says so and how to switch; undefined
 * otherwise, and after the first time in this process. Reads voxd.json only
 * when VOXD_AUDIO or VOXD_ENGINE is set, so the usual run pays nothing.
 */
export function settingsMismatch(env: NodeJS.ProcessEnv): string | undefined {
  if (mismatchTold || (!env.VOXD_AUDIO && !env.VOXD_ENGINE)) return undefined;
  const state = readDaemonState(env);
  if (!state) return undefined;
  const differ: string[] = [];
  const fixes: string[] = [];
  const check = (variable: string, key: 'audio' | 'engine', running: string | undefined) => {
    const wanted = env[variable];
    if (!wanted || running === undefined || wanted === running) return;
    const from = state.sources?.[key];
    const why = {
      file: 'from its settings file',
      env: 'from its environment',
      flag: 'from its command line',
      default: 'its default',
    }[from ?? ''];
    differ.push(`${variable}=${wanted} here, but the running voxd uses ${key} ${running}${why ? ` (${why})` : ''}`);
    fixes.push(`vox daemon config set ${key} ${wanted}`);
  };
  check('VOXD_AUDIO', 'audio', state.audio);
  check('VOXD_ENGINE', 'engine', state.engine);
  if (!differ.length) return undefined;
  mismatchTold = true;
  return `${differ.join('; ')}. To switch, run "${fixes.join('" and "')}", then "vox daemon restart" (voxd takes its settings from that file, not from the client that starts it).`;
}

/** How a connection failed, for the message: each has its own cause and fix. */
type Failure = 'refused' | 'reset' | 'timeout' | 'other';

function failureOf(err: unknown): Failure {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || e.code === 'EADDRNOTAVAIL') return 'refused';
  if (e.code === 'ECONNRESET' || e.code === 'EPIPE') return 'reset';
  if (e.code === 'ETIMEDOUT') return 'timeout';
  return 'other';
}

function unreachable(
  env: NodeJS.ProcessEnv,
  endpoint: Endpoint | undefined,
  cause: string,
  failure: Failure = 'other',
): ClientError {
  const problem = endpoint ? undefined : daemonStateFile(env).problem;
  const where = endpoint
    ? `at ${endpoint.host}:${endpoint.port} (from ${endpoint.source})`
    : problem
      ? `(${problem}, so it names no voxd)`
      : '(no voxd.json in VOX_HOME, so none is running)';
  const noAuto = env.VOX_NO_AUTOSTART === '1';
  const fix =
    failure === 'timeout'
      ? 'Something accepted the connection but did not answer: a busy voxd, or another program holding the port. "vox daemon status" shows where voxd is; "vox logs" what it did.'
      : failure === 'reset'
        ? 'The connection was cut: voxd was stopping, restarting or at its connection cap. Try again; "vox logs" says which.'
        : problem
          ? `voxd rewrites it while it runs; ${noAuto ? 'start one with "vox daemon start", or unset VOX_NO_AUTOSTART' : 'if it stays, remove it and run "vox daemon restart"'}.`
          : noAuto && failure === 'refused'
            ? `${endpoint ? 'Nothing listens there: start' : 'Start'} it with "vox daemon start", or unset VOX_NO_AUTOSTART.`
            : 'Check it with "vox daemon status" and "vox logs".';
  return new ClientError('VOX_ERR_CLIENT_DAEMON_UNREACHABLE', `cannot reach voxd ${where}: ${cause}. ${fix}`);
}

/** voxd answered at its connection cap (503 TOO_MANY_CONNECTIONS): a clear error, not a retry that adds one more. */
function tooManyConnections(reply: Reply<unknown>, endpoint: Endpoint): ClientError | undefined {
  const code = (reply.body as { code?: unknown } | undefined)?.code;
  if (reply.status !== 503 || typeof code !== 'string' || !code.endsWith('TOO_MANY_CONNECTIONS')) return undefined;
  return new ClientError(
    'VOX_ERR_CLIENT_DAEMON_UNREACHABLE',
    `voxd at ${endpoint.host}:${endpoint.port} refused the call: too many connections (${code}). Try again when fewer clients are connected; "vox status" shows what runs.`,
  );
}

/** voxd refused the token and the token file is why: say so, with the fix. */
function tokenRefused(reply: Reply<unknown>, endpoint: Endpoint): ClientError | undefined {
  if ((reply.status !== 401 && reply.status !== 403) || !endpoint.tokenProblem) return undefined;
  return new ClientError(
    'VOX_ERR_CLIENT_STATE_FILE',
    `voxd refused the call because ${endpoint.tokenProblem}, so this client has no token to send, and the running voxd did not write it again within ${TOKEN_HEAL_MS / 1000} s. Remove it and run "vox daemon restart" (voxd writes a new one).`,
  );
}

function shuttingDown(reply: Reply<unknown>): boolean {
  return reply.status === 503 && (reply.body as { code?: unknown } | undefined)?.code === 'VOX_ERR_SHUTTING_DOWN';
}

function connectionFailed(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ENOENT' ||
    code === 'EHOSTUNREACH' ||
    code === 'EADDRNOTAVAIL'
  );
}

export interface CallOptions {
  /** How long to wait for a voxd this call starts, in ms. Default 15000. */
  startTimeoutMs?: number;
  /**
   * The call's total deadline in ms: connecting, starting voxd and the answer
   * together, whatever the other side does. Default: startTimeoutMs plus timeoutMs.
   */
  deadlineMs?: number;
  /** Hangs up the request when aborted (it rejects with an AbortError). */
  signal?: AbortSignal;
}

/**
 * Call voxd, starting it when nothing answers (unless VOX_NO_AUTOSTART=1),
 * within a total deadline. Throws ClientError when it cannot be reached in
 * time (VOX_ERR_CLIENT_DAEMON_UNREACHABLE) or what answers is not voxd
 * (VOX_ERR_CLIENT_NOT_VOXD).
 */
export async function call<T>(
  env: NodeJS.ProcessEnv,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const deadline = Date.now() + (options.deadlineMs ?? startTimeoutMs + timeoutMs);
  const left = (ms: number) => Math.max(1, Math.min(ms, deadline - Date.now()));
  // Every speak request gets an id here, where re-sends happen: the retry below
  // (voxd killed or restarted mid-answer) is then joined to the first, never spoken twice.
  if (method === 'POST' && path === '/v1/speak' && body && typeof body === 'object' && !('requestId' in body))
    body = { ...body, requestId: newRequestId() };
  const attempt = (endpoint: Endpoint) => request<T>(endpoint, method, path, body, left(timeoutMs), options.signal);
  const answer = async (reply: Reply<T>, at: Endpoint): Promise<Reply<T>> => {
    const badToken = tokenRefused(reply, at);
    if (badToken) {
      // The running voxd rewrites a spoiled token file when it sees the change, else within 2 s (voxd's
      // access/keeper.ts); under load that can take a while. Read it again until it is whole, then send once more.
      const until = Math.min(deadline, Date.now() + TOKEN_HEAL_MS);
      for (;;) {
        await sleep(Math.min(100, left(100)));
        const again = withToken(at, env);
        if (again.token && !again.tokenProblem) return attempt(again);
        if (Date.now() >= until) throw badToken;
      }
    }
    const refused = tooManyConnections(reply, at);
    if (refused) throw refused;
    return reply;
  };
  let endpoint = resolveEndpoint(env);
  // Remote link: voxd is on another host, never started here (remote/remote-call.ts).
  if (endpoint?.remote) return callRemote<T>(env, endpoint, method, path, body, left(timeoutMs), options.signal);
  // An invalid VOXD_PORT (abc, 99999) is voxd's to explain: it validates its settings.
  const usable = endpoint !== undefined && validPort(endpoint.port);
  // voxd went away while it held this request (it hung up, or said it is stopping): what comes next is a re-send.
  let wentAway = false;
  let failure: Failure = 'refused';
  if (endpoint && usable) {
    try {
      const reply = await attempt(endpoint);
      // voxd is stopping (a restart, say): like a refused connection, wait for the next one and send there.
      if (!shuttingDown(reply) || env.VOX_NO_AUTOSTART === '1') return await answer(reply, endpoint);
      wentAway = true;
    } catch (err) {
      // A voxd.json that names another server is stale: start voxd, which rewrites it.
      const stale =
        err instanceof ClientError &&
        err.code === 'VOX_ERR_CLIENT_NOT_VOXD' &&
        endpoint.source === 'voxd.json' &&
        env.VOX_NO_AUTOSTART !== '1';
      if (!stale) {
        if (err instanceof ClientError || (err as Error).name === 'AbortError') throw err;
        failure = failureOf(err);
        if (!connectionFailed(err)) throw unreachable(env, endpoint, (err as Error).message, failure);
        wentAway = failure === 'reset';
      }
    }
  }
  // A stale voxd.json on a host with a remote link (a local voxd that died): the link, not a new local voxd.
  const linked = endpoint?.source === 'voxd.json' && !wentAway ? linkEndpoint(env) : undefined;
  if (linked) return callRemote<T>(env, linked, method, path, body, left(timeoutMs), options.signal);
  if (env.VOX_NO_AUTOSTART === '1') {
    if (endpoint && !usable)
      throw new ClientError(
        'VOX_ERR_CLIENT_USAGE',
        `${endpoint.source}=${endpoint.source === 'VOXD_PORT' ? env.VOXD_PORT : env.VOXD_URL} is not a port; use an integer from 1 to 65535`,
      );
    throw unreachable(
      env,
      endpoint,
      endpoint
        ? failure === 'reset'
          ? 'the connection was reset'
          : 'connection refused'
        : 'VOX_NO_AUTOSTART=1 is set',
      failure,
    );
  }
  // "vox daemon stop|restart" decides, not a waiter: after a stop the caller is told, during a restart it waits for the new voxd.
  const marker = readStopMarker(env);
  if (marker?.reason === 'stop' && wentAway) {
    throw new ClientError(
      'VOX_ERR_CLIENT_DAEMON_STOPPED',
      'voxd was stopped by request ("vox daemon stop") while this call waited, so its speech was stopped; what voxd had not spoken stays in its journal and is spoken when voxd starts again ("vox daemon start", or the next call).',
    );
  }
  endpoint = await startDaemon(env, { timeoutMs: left(startTimeoutMs), noSpawn: marker?.reason === 'restart' });
  try {
    return await answer(await attempt(endpoint), endpoint);
  } catch (err) {
    if (err instanceof ClientError) throw err;
    throw unreachable(env, endpoint, (err as Error).message, failureOf(err));
  }
}

/**
 * Unique enough within one VOX_HOME (time, pid and 48 random bits), and free:
 * no crypto on the hook path for an id that guards against nothing hostile.
 */
function newRequestId(): string {
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.floor(Math.random() * 2 ** 48).toString(36)}`;
}

export { DEFAULT_PORT };
