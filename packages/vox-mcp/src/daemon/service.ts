/**
 * voxd as a service of the user's service manager: a systemd user unit with
 * socket activation on Linux, a LaunchAgent on macOS (service-files.ts
 * renders them); this module installs them and drives the manager.
 *
 * Design notes:
 * - The service manager is driven through an injected `exec`, so tests run the
 *   whole install against a temporary HOME.
 * - Install first checks that the manager really works (`systemctl --user
 *   is-system-running` reports a running user manager; `launchctl print
 *   gui/<uid>` answers). Without one it refuses before it writes or stops
 *   anything: units that nothing runs, with the client-started voxd stopped,
 *   left users with no speech at all.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { homePaths, voxHome } from '@vox/protocol';
import { readSettingsFile, resolveSettings, settingsPath } from '@vox/protocol/settings';
import {
  loadTemplates,
  missingSessionTargets,
  renderServiceFiles,
  resolveVoxd,
  SERVICE_LABEL,
  ServiceError,
  serviceFilePaths,
  serviceManager,
  serviceValues,
  SYSTEMD_SERVICE,
  SYSTEMD_SOCKET,
  type ServiceManager,
} from './service-files.js';

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

/** What an install, uninstall or control action did. */
export interface ServiceReport {
  manager: ServiceManager;
  /** Unit or plist files written or removed. */
  files: string[];
  /** Service-manager commands run, in order, as argv arrays. */
  commands: string[][];
  /** True when the service manager accepted every command. */
  activated: boolean;
  /** Things the user should know or do, one sentence each. */
  warnings: string[];
}

/** systemctl could not be run, or could not reach the user's manager. */
function managerUnavailable(res: ExecResult): boolean {
  return res.error?.code === 'ENOENT' || /Failed to connect to bus|No medium found/i.test(res.stderr);
}

interface Resolved {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  manager: ServiceManager;
  home: string;
  uid: number;
  exec: Exec;
  paths: string[];
}

function resolve(opts: ServiceOptions): Resolved {
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

/** True when this user's service files are in place. */
export function serviceInstalled(opts: ServiceOptions): boolean {
  const r = resolve(opts);
  return r.paths.every((p) => existsSync(p));
}

function writeAtomic(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents, { mode: 0o644 });
  renameSync(tmp, path);
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

/** How a failed command looks in a warning. */
function describeFailure(argv: readonly string[], res: ExecResult): string {
  const cmd = argv.join(' ');
  if (res.error?.code === 'ENOENT') return `${argv[0]} is not installed`;
  if (res.error) return `"${cmd}" failed: ${res.error.message}`;
  const why = firstLine(res.stderr) || firstLine(res.stdout) || `exit code ${res.code}`;
  return `"${cmd}" failed: ${why}`;
}

class Runner {
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

async function probeManager(r: Resolved, run: Runner): Promise<ManagerCheck> {
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

/** The port the socket unit holds: VOXD_PORT, else the settings file's, else 8421. */
function settingsPort(env: NodeJS.ProcessEnv): number {
  const resolved = resolveSettings({ env, file: readSettingsFile(settingsPath(env)) });
  return resolved.values.port;
}

const SYSTEMD_ENABLE = 'systemctl --user daemon-reload && systemctl --user enable --now voxd.socket voxd.service';

/**
 * Write the service files and hand them to the service manager. Re-running it
 * rewrites the files and restarts a running voxd when they changed.
 */
export async function installService(opts: ServiceOptions): Promise<ServiceReport> {
  const r = resolve(opts);
  const run = new Runner(r);
  const manager = await probeManager(r, run);
  if (!manager.ok) throw new ServiceError(refusal(r.manager, manager.detail), true);
  const exists = opts.exists ?? existsSync;
  const values = serviceValues({
    env: r.env,
    platform: r.platform,
    home: r.home,
    uid: r.uid,
    node: opts.node ?? process.execPath,
    voxd: opts.voxd ?? resolveVoxd(r.env),
    port: opts.port ?? settingsPort(r.env),
    exists,
  });
  const files = renderServiceFiles(r.platform, values, loadTemplates(opts.templatesDir), r.paths);
  const warnings: string[] = missingSessionTargets(r.env, exists);
  const dbus = values.DBUS_SESSION_BUS_ADDRESS;
  if (dbus && /(abstract=|guid=)/.test(dbus)) {
    warnings.push(
      `DBUS_SESSION_BUS_ADDRESS (${dbus}) changes at every login; if voxd loses sound after you log in again, run "vox daemon install" again.`,
    );
  }
  let existed = false;
  let changed = false;
  for (const f of files) {
    const before = existsSync(f.path) ? readFileSync(f.path, 'utf8') : undefined;
    if (before !== undefined) existed = true;
    if (before !== f.contents) changed = true;
  }
  // launchd does not create the log directory; voxd's own logs live there too.
  mkdirSync(values.LOG_DIR, { recursive: true, mode: 0o700 });
  for (const f of files) writeAtomic(f.path, f.contents);

  const report = (activated: boolean): ServiceReport => ({
    manager: r.manager,
    files: files.map((f) => f.path),
    commands: run.commands,
    activated,
    warnings,
  });

  if (r.manager === 'systemd') {
    const reload = await run.run(['systemctl', '--user', 'daemon-reload']);
    if (reload.code !== 0) {
      const why = describeFailure(['systemctl', '--user', 'daemon-reload'], reload);
      warnings.push(
        reload.error?.code === 'ENOENT'
          ? `${why}: the unit files are written but not enabled. On a systemd machine run: ${SYSTEMD_ENABLE}. Meanwhile "vox daemon start" runs voxd without a service manager.`
          : `${why} (no user session bus? log in to a desktop or ssh session with a user systemd, or run "loginctl enable-linger $USER"). The unit files are written; then run: ${SYSTEMD_ENABLE}`,
      );
      return report(false);
    }
    const enableArgv = ['systemctl', '--user', 'enable', '--now', SYSTEMD_SOCKET, SYSTEMD_SERVICE];
    const enable = await run.run(enableArgv);
    if (enable.code !== 0) {
      warnings.push(
        `${describeFailure(enableArgv, enable)}. If port ${values.PORT} is in use, stop the other voxd ("vox daemon stop") and run the install again; "journalctl --user -u voxd" has the details.`,
      );
      return report(false);
    }
    if (existed && changed) {
      const restart = await run.run(['systemctl', '--user', 'try-restart', SYSTEMD_SERVICE]);
      if (restart.code !== 0) {
        warnings.push(
          `${describeFailure(['systemctl', '--user', 'try-restart', SYSTEMD_SERVICE], restart)}; run "vox daemon restart".`,
        );
        return report(false);
      }
    }
    return report(true);
  }

  const domain = `gui/${r.uid}`;
  const plist = files[0]!.path;
  // A loaded agent keeps its old definition until it is booted out.
  if (existed) await run.run(['launchctl', 'bootout', `${domain}/${SERVICE_LABEL}`]);
  const boot = await run.run(['launchctl', 'bootstrap', domain, plist]);
  if (boot.code !== 0) {
    warnings.push(
      `${describeFailure(['launchctl', 'bootstrap', domain, plist], boot)}. The plist is written; load it from a GUI login session with: launchctl bootstrap ${domain} "${plist}"`,
    );
    return report(false);
  }
  return report(true);
}

/** Stop and disable the service, then remove its files. Harmless when not installed. */
export async function uninstallService(opts: ServiceOptions): Promise<ServiceReport> {
  const r = resolve(opts);
  const present = r.paths.filter((p) => existsSync(p));
  const run = new Runner(r);
  const warnings: string[] = [];
  let activated = true;
  if (present.length > 0) {
    if (r.manager === 'systemd') {
      const argv = ['systemctl', '--user', 'disable', '--now', SYSTEMD_SOCKET, SYSTEMD_SERVICE];
      const res = await run.run(argv);
      if (res.code !== 0) {
        activated = false;
        warnings.push(
          `${describeFailure(argv, res)}. The unit files are removed; a voxd already running keeps running until "vox daemon stop" or logout.`,
        );
      }
    } else {
      // Not loaded is fine: there is nothing to stop.
      await run.run(['launchctl', 'bootout', `gui/${r.uid}/${SERVICE_LABEL}`]);
    }
    for (const p of present) rmSync(p, { force: true });
    if (r.manager === 'systemd' && activated) {
      const argv = ['systemctl', '--user', 'daemon-reload'];
      const res = await run.run(argv);
      if (res.code !== 0) {
        activated = false;
        warnings.push(`${describeFailure(argv, res)}.`);
      }
    }
  }
  return { manager: r.manager, files: present, commands: run.commands, activated, warnings };
}

export type ServiceAction = 'start' | 'stop' | 'restart';

function controlArgv(manager: ServiceManager, action: ServiceAction, uid: number): string[] {
  const target = `gui/${uid}/${SERVICE_LABEL}`;
  if (manager === 'systemd') {
    // stop leaves the socket listening: the next client request starts voxd again,
    // exactly as a client would start an unmanaged one.
    if (action === 'start') return ['systemctl', '--user', 'start', SYSTEMD_SOCKET, SYSTEMD_SERVICE];
    return ['systemctl', '--user', action, SYSTEMD_SERVICE];
  }
  if (action === 'start') return ['launchctl', 'kickstart', target];
  if (action === 'stop') return ['launchctl', 'kill', 'SIGTERM', target];
  return ['launchctl', 'kickstart', '-k', target];
}

/**
 * Start, stop or restart the installed service through its manager. Rejects
 * with a ServiceError that quotes the manager's own message.
 */
export async function controlService(action: ServiceAction, opts: ServiceOptions): Promise<ServiceReport> {
  const r = resolve(opts);
  const run = new Runner(r);
  const argv = controlArgv(r.manager, action, r.uid);
  let res = await run.run(argv);
  if (res.code !== 0 && r.manager === 'launchd' && action !== 'stop') {
    // Not loaded (booted out, or never loaded in this session): load it, which starts it.
    res = await run.run(['launchctl', 'bootstrap', `gui/${r.uid}`, r.paths[0]!]);
  }
  if (res.code !== 0) {
    const hint =
      r.manager === 'systemd'
        ? ' See "journalctl --user -u voxd".'
        : ` See the logs in ${homePaths(voxHome(r.env, r.platform, r.home)).logs}.`;
    throw new ServiceError(`${describeFailure(run.commands.at(-1)!, res)}.${hint}`, managerUnavailable(res));
  }
  return { manager: r.manager, files: r.paths, commands: run.commands, activated: true, warnings: [] };
}
