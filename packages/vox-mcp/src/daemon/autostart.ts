/**
 * The auto-start layer: when voxd does not answer a call (no-answer.ts), start
 * it (unless VOX_NO_AUTOSTART=1) and send the call there; and `startDaemon`,
 * which "vox daemon start" uses too. A spawn lock in VOX_HOME makes the
 * clients that arrive at once start one voxd.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { DEFAULT_HOST, DEFAULT_PORT, homePaths, makeDirs, voxHome } from '@vox/protocol';
import { ClientError } from '../errors.js';
import { healthAt, localEndpoint, type Endpoint, type Reply } from './http.js';
import { failureOf, NoAnswer, unreachable, validPort } from './no-answer.js';
import { afterGoingAway } from './resend.js';
import { timeLeft, type CallRequest, type Layer } from './send.js';
import { withToken } from './token-repair.js';

export const autoStart: Layer =
  (next) =>
  async <T>(req: CallRequest): Promise<Reply<T>> => {
    try {
      return await next<T>(req);
    } catch (err) {
      if (!(err instanceof NoAnswer)) throw err;
      const { env } = req;
      const { endpoint, failure, wentAway } = err;
      if (env.VOX_NO_AUTOSTART === '1') {
        if (endpoint && !validPort(endpoint.port))
          throw new ClientError(
            'VOX_ERR_CLIENT_USAGE',
            `${endpoint.source}=${endpoint.source === 'VOXD_PORT' ? env.VOXD_PORT : env.VOXD_URL} is not a port; use an integer from 1 to 65535`,
          );
        const cause = !endpoint
          ? 'VOX_NO_AUTOSTART=1 is set'
          : failure === 'reset'
            ? 'the connection was reset'
            : 'connection refused';
        throw unreachable(env, endpoint, cause, failure);
      }
      const { noSpawn } = afterGoingAway(env, wentAway);
      const started = await startDaemon(env, { timeoutMs: timeLeft(req, req.startTimeoutMs), noSpawn });
      try {
        return await next<T>({ ...req, endpoint: started, started: true });
      } catch (e) {
        if (e instanceof ClientError) throw e;
        throw unreachable(env, started, (e as Error).message, failureOf(e));
      }
    }
  };

async function voxdEntry(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.VOXD_BIN) return env.VOXD_BIN;
  // createRequire works both in the ESM build and in the bundled CJS bin.
  // Loaded only here, like node:child_process: most runs find voxd already up.
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url).resolve('voxd/main');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  'VOXD_ATTENTION',
  'VOXD_DIGEST_MS',
  'VOXD_QUIET_HOURS',
  'VOXD_QUIET_MICROPHONE',
] as const;

/**
 * Whether a variable of a client's environment is a secret that an auto-started
 * voxd must not inherit: every cloud key (OPENAI_API_KEY, ELEVENLABS_API_KEY,
 * and any other *_API_KEY). voxd takes its keys from VOX_HOME/keys.env.
 */
export function isSecretVariable(name: string): boolean {
  return /_API_KEY$/.test(name);
}

/**
 * What a launch set for `vox mcp` alone, which voxd must not inherit: the
 * plugin's `.mcp.json` gives the server MALLOC_ARENA_MAX=1 (one malloc arena:
 * 0.36 MB less a session, docs/mcp.md) and names it in VOX_MCP_ENV; voxd's
 * threads (synthesis, preparation) would contend on one arena.
 */
export function launchOnlyVariables(env: NodeJS.ProcessEnv): string[] {
  const named = (env.VOX_MCP_ENV ?? '').split(',').filter((k) => /^[A-Z][A-Z0-9_]{0,63}$/.test(k));
  return [...named, 'VOX_MCP_ENV'];
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
      let endpoint = localEndpoint(env);
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
          for (const k of launchOnlyVariables(env)) delete childEnv[k];
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
