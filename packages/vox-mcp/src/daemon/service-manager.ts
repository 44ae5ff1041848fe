/**
 * The user's service manager (systemd's user manager, launchd), as install,
 * uninstall and control (service.ts) and "vox doctor" drive it: its commands
 * run through an injected `exec` (tests record them against a temporary
 * HOME), whether it really works (`checkServiceManager`), and why install
 * refuses when it does not.
 */
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { serviceFilePaths, serviceManager, type ServiceManager } from './service-files.js';

/** Result of running one program; never rejects. */
export interface ExecResult {
  /** Exit code, or null when the program could not be run or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (ENOENT) or timed out. */
  error?: NodeJS.ErrnoException;
}

export type Exec = (
  file: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs?: number },
) => Promise<ExecResult>;

/** Runs a program with `execFile`; the default `exec`. */
export const defaultExec: Exec = (file, args, options) =>
  new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { env: options.env, timeout: options.timeoutMs ?? 15_000, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
        if (typeof e.code === 'number') return resolve({ code: e.code, stdout, stderr });
        resolve({ code: null, stdout, stderr, error: e });
      },
    );
  });

export interface ServiceOptions {
  /** The installing user's environment: HOME, PATH, VOX_HOME and the audio session. */
  env: NodeJS.ProcessEnv;
  /** Default: `process.platform`. */
  platform?: NodeJS.Platform;
  /** Default: `env.HOME`, else `os.homedir()`. */
  home?: string;
  /** Default: `process.getuid()`. Used for `/run/user/<uid>` and `gui/<uid>`. */
  uid?: number;
  /** Default: `process.execPath`. */
  node?: string;
  /** Default: `VOXD_BIN`, else voxd's entry next to this package (see `resolveVoxd`). */
  voxd?: string;
  /** Default: `VOXD_PORT`, else the `port` setting, else 8421. */
  port?: number;
  /** Default existsSync: whether a path named by a session variable is there. */
  exists?: (path: string) => boolean;
  /** Default: `defaultExec`. Tests inject a recorder. */
  exec?: Exec;
  /** Default: the repository's `config/`. */
  templatesDir?: string;
}

/** systemctl could not be run, or could not reach the user's manager. */
export function managerUnavailable(res: ExecResult): boolean {
  return res.error?.code === 'ENOENT' || /Failed to connect to bus|No medium found/i.test(res.stderr);
}

export interface Resolved {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  manager: ServiceManager;
  home: string;
  uid: number;
  exec: Exec;
  paths: string[];
}

export function resolve(opts: ServiceOptions): Resolved {
  const platform = opts.platform ?? process.platform;
  const home = opts.home ?? (opts.env.HOME || homedir());
  return {
    env: opts.env,
    platform,
    manager: serviceManager(platform),
    home,
    uid: opts.uid ?? process.getuid?.() ?? 0,
    exec: opts.exec ?? defaultExec,
    paths: serviceFilePaths(platform, opts.env, home),
  };
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

/** How a failed command looks in a warning. */
export function describeFailure(argv: readonly string[], res: ExecResult): string {
  const cmd = argv.join(' ');
  if (res.error?.code === 'ENOENT') return `${argv[0]} is not installed`;
  if (res.error) return `"${cmd}" failed: ${res.error.message}`;
  const why = firstLine(res.stderr) || firstLine(res.stdout) || `exit code ${res.code}`;
  return `"${cmd}" failed: ${why}`;
}

export class Runner {
  readonly commands: string[][] = [];
  constructor(private readonly r: Resolved) {}
  async run(argv: string[]): Promise<ExecResult> {
    this.commands.push(argv);
    return this.r.exec(argv[0]!, argv.slice(1), { env: this.r.env });
  }
}

/** Whether the service manager answers, and what it said. */
export interface ManagerCheck {
  manager: ServiceManager;
  ok: boolean;
  /** What the manager said, e.g. `running`, or why it cannot be used. */
  detail: string;
  /** The command run. */
  command: string[];
}

/** States of `systemctl --user is-system-running` in which the manager takes jobs. */
const WORKING_STATES = new Set(['running', 'degraded', 'starting', 'initializing']);

export async function probeManager(r: Resolved, run: Runner): Promise<ManagerCheck> {
  const command =
    r.manager === 'systemd' ? ['systemctl', '--user', 'is-system-running'] : ['launchctl', 'print', `gui/${r.uid}`];
  const res = await run.run(command);
  if (res.error)
    return {
      manager: r.manager,
      ok: false,
      command,
      detail:
        res.error.code === 'ENOENT'
          ? `${command[0]} is not installed`
          : `"${command.join(' ')}" failed: ${res.error.message}`,
    };
  if (r.manager === 'systemd') {
    const state = res.stdout.trim().split('\n')[0] ?? '';
    if (WORKING_STATES.has(state))
      return { manager: r.manager, ok: true, command, detail: `the user manager is ${state}` };
    const why = firstLine(res.stderr);
    return {
      manager: r.manager,
      ok: false,
      command,
      detail: `"${command.join(' ')}" says ${state ? `"${state}"` : `nothing (exit ${res.code})`}${why ? `: ${why}` : ''}`,
    };
  }
  if (res.code === 0) return { manager: r.manager, ok: true, command, detail: `the GUI session gui/${r.uid} answers` };
  return { manager: r.manager, ok: false, command, detail: describeFailure(command, res) };
}

/**
 * Whether this user's service manager really works: a reachable systemd user
 * manager, or launchd's GUI domain. Runs one read-only command.
 */
export async function checkServiceManager(opts: ServiceOptions): Promise<ManagerCheck> {
  const r = resolve(opts);
  return probeManager(r, new Runner(r));
}

/** Why install refuses, and how to run voxd instead. */
export function refusal(manager: ServiceManager, detail: string): string {
  const what =
    manager === 'systemd'
      ? 'no working systemd user manager'
      : 'no launchd GUI session (run it from a Terminal window of your desktop login, not over ssh)';
  return (
    `${what}: ${detail}. Nothing was installed or stopped. Without a service manager, voxd still runs: ` +
    'clients start it on demand (nothing to do; "vox daemon start" starts it now), or run "voxd" under your own supervisor (a container init, runit, supervisord; "npx vox setup" in the vox checkout puts voxd on PATH).'
  );
}
