/**
 * voxd as a service of the user's service manager: a systemd user unit with
 * socket activation on Linux, a LaunchAgent on macOS.
 *
 * Design notes:
 * - The templates live in the repository's `config/` so that they can be read
 *   and reviewed as plain files; rendering them is a pure function.
 * - The unit carries the installing user's audio session (XDG_RUNTIME_DIR,
 *   PULSE_SERVER, DBUS_SESSION_BUS_ADDRESS). A user service without it starts
 *   fine and plays nothing: the reference implementation's worst outage.
 * - Absolute paths to node and voxd, because a service manager has no shell
 *   PATH, and nvm-style installs keep node outside the default one.
 * - The service manager is driven through an injected `exec`, so tests run the
 *   whole install against a temporary HOME.
 * - Install first checks that the manager really works (`systemctl --user
 *   is-system-running` reports a running user manager; `launchctl print
 *   gui/<uid>` answers). Without one it refuses before it writes or stops
 *   anything: units that nothing runs, with the client-started voxd stopped,
 *   left users with no speech at all.
 * - A variable that is unset or points nowhere (an XDG_RUNTIME_DIR such as
 *   /run/user/0 that does not exist, a PULSE_SERVER or bus socket that is not
 *   there) is left out of the unit, with a warning: a wrong value is worse
 *   than none.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homePaths, voxHome } from '@vox/protocol';
import { readSettingsFile, resolveSettings, settingsDir, settingsPath } from '@vox/protocol/settings';
import { packageUrl } from '../package-dir.js';

/** launchd label, and the plist's file name without `.plist`. */
export const SERVICE_LABEL = 'com.vox.voxd';
export const SYSTEMD_SERVICE = 'voxd.service';
export const SYSTEMD_SOCKET = 'voxd.socket';

export type ServiceManager = 'systemd' | 'launchd';

/** The values a template may refer to as `{{NAME}}`. `undefined` drops the line. */
export interface ServiceValues {
  /** Absolute path of node (`process.execPath` by default). */
  NODE: string;
  /** Absolute path of voxd's entry (`packages/voxd/dist/main.js`). */
  VOXD: string;
  VOX_HOME: string;
  /** Where launchd writes voxd's stdout and stderr: `VOX_HOME/logs`. */
  LOG_DIR: string;
  /** The installing user's PATH, with node's directory in front (for fallback players). */
  PATH: string;
  /** TCP port on 127.0.0.1 that the socket unit listens on. */
  PORT: string;
  /** The directory of voxd's settings file, as `vox daemon config` finds it from the installing shell. */
  VOX_CONFIG_HOME: string;
  /** Linux: from the environment, else `/run/user/<uid>`; only when the directory exists. macOS: only when set. */
  XDG_RUNTIME_DIR: string | undefined;
  PULSE_SERVER: string | undefined;
  DBUS_SESSION_BUS_ADDRESS: string | undefined;
}

export interface Templates {
  service: string;
  socket: string;
  plist: string;
}

export interface ServiceFile {
  path: string;
  contents: string;
}

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

/** A failure of the service manager that the caller reports as-is. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  /**
   * True when the manager itself could not be reached (no systemctl, no user
   * bus), as opposed to refusing the action: the caller may then run voxd
   * without it.
   */
  readonly managerUnavailable: boolean;
  constructor(message: string, managerUnavailable = false) {
    super(message);
    this.managerUnavailable = managerUnavailable;
  }
}

/** systemctl could not be run, or could not reach the user's manager. */
function managerUnavailable(res: ExecResult): boolean {
  return res.error?.code === 'ENOENT' || /Failed to connect to bus|No medium found/i.test(res.stderr);
}

/** The repository's `config/`. */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(packageUrl('../../config/'));

export function loadTemplates(dir: string = DEFAULT_TEMPLATES_DIR): Templates {
  return {
    service: readFileSync(join(dir, SYSTEMD_SERVICE), 'utf8'),
    socket: readFileSync(join(dir, SYSTEMD_SOCKET), 'utf8'),
    plist: readFileSync(join(dir, `${SERVICE_LABEL}.plist`), 'utf8'),
  };
}

/**
 * voxd's entry point: `VOXD_BIN` when set (as for the client's autostart),
 * else the one beside this package, both in the workspace (`packages/voxd`)
 * and in an installed tree (`node_modules/voxd`).
 */
export function resolveVoxd(env: NodeJS.ProcessEnv = {}): string {
  const path = env.VOXD_BIN ? resolvePath(env.VOXD_BIN) : fileURLToPath(packageUrl('../voxd/dist/main.js'));
  if (!existsSync(path)) {
    throw new ServiceError(`Cannot find voxd at ${path}. Build it first ("npm run build" in the vox checkout).`);
  }
  return realpathSync(path);
}

/**
 * Replace each `{{NAME}}` with `escape(NAME, value)`. A line that refers to a
 * value that is `undefined` is left out (optional environment lines); a name
 * that is not in `values` at all is an error, so a typo cannot ship.
 */
export function renderTemplate(
  template: string,
  values: Readonly<Record<string, string | undefined>>,
  escape: (name: string, value: string) => string = (_n, v) => v,
): string {
  const out: string[] = [];
  for (const line of template.split('\n')) {
    let drop = false;
    const rendered = line.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_m, name: string) => {
      if (!Object.hasOwn(values, name)) throw new ServiceError(`Unknown template placeholder {{${name}}}.`);
      const value = values[name];
      if (value === undefined) {
        drop = true;
        return '';
      }
      return escape(name, value);
    });
    if (!drop) out.push(rendered);
  }
  return out.join('\n');
}

/** The template values for a user, from their environment. Pure. */
export function serviceValues(input: {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  uid: number;
  node: string;
  voxd: string;
  port: number;
  /** Default existsSync: whether a path the session variables name is there. */
  exists?: (path: string) => boolean;
}): ServiceValues {
  const { env, platform, home, uid, node, voxd, port } = input;
  const exists = input.exists ?? existsSync;
  const set = (name: string): string | undefined => {
    const value = env[name];
    return value && sessionTarget(name, value, exists) !== false ? value : undefined;
  };
  const runtime = set('XDG_RUNTIME_DIR') ?? (platform === 'darwin' || !exists(`/run/user/${uid}`) ? undefined : `/run/user/${uid}`);
  const vh = voxHome(env, platform, home);
  const nodeDir = dirname(node);
  const path = env.PATH || '/usr/local/bin:/usr/bin:/bin';
  const parts = path.split(delimiter);
  return {
    NODE: node,
    VOXD: voxd,
    VOX_HOME: vh,
    LOG_DIR: homePaths(vh).logs,
    PATH: parts.includes(nodeDir) ? path : [nodeDir, ...parts].join(delimiter),
    PORT: String(port),
    VOX_CONFIG_HOME: settingsDir(env, platform, home),
    XDG_RUNTIME_DIR: runtime,
    PULSE_SERVER: set('PULSE_SERVER'),
    DBUS_SESSION_BUS_ADDRESS: set('DBUS_SESSION_BUS_ADDRESS'),
  };
}

/**
 * Whether a session variable's target is there: false when it names a path
 * that does not exist, undefined when it cannot be told (a TCP address, an
 * abstract socket), true when it is there.
 */
export function sessionTarget(name: string, value: string, exists: (path: string) => boolean = existsSync): boolean | undefined {
  let path: string | undefined;
  if (name === 'XDG_RUNTIME_DIR') path = value;
  else if (name === 'PULSE_SERVER') path = /^unix:(\/[^\s]*)/.exec(value)?.[1] ?? (value.startsWith('/') ? value : undefined);
  else if (name === 'DBUS_SESSION_BUS_ADDRESS') path = /(?:^|[;,:])path=([^,;]+)/.exec(value)?.[1];
  if (path === undefined) return undefined;
  return exists(path);
}

/** The session variables of `env` that are set but point nowhere, as warnings. */
export function missingSessionTargets(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync): string[] {
  return SESSION_VARIABLES.filter((n) => env[n] && sessionTarget(n, env[n]!, exists) === false).map(
    (n) => `${n}=${env[n]} points to nothing here, so it is left out of the service file; run "vox daemon install" again from a shell of your desktop session if voxd plays nothing.`,
  );
}

const SESSION_VARIABLES = ['XDG_RUNTIME_DIR', 'PULSE_SERVER', 'DBUS_SESSION_BUS_ADDRESS'] as const;

function noNewline(name: string, value: string): string {
  if (/[\n\r\0]/.test(value)) throw new ServiceError(`${name} contains a line break or NUL; it cannot go into a service file.`);
  return value;
}

/**
 * Escape for the inside of a double-quoted word in a unit file: C escapes for
 * `\` and `"`, `%%` for specifiers, and `$$` in ExecStart (where `$VAR` expands).
 */
function escapeSystemd(name: string, value: string): string {
  let v = noNewline(name, value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (name === 'NODE' || name === 'VOXD') v = v.replace(/\$/g, '$$$$');
  return v;
}

function escapeXml(name: string, value: string): string {
  return noNewline(name, value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function serviceManager(platform: NodeJS.Platform): ServiceManager {
  if (platform === 'linux') return 'systemd';
  if (platform === 'darwin') return 'launchd';
  throw new ServiceError(`vox daemon install supports Linux (systemd) and macOS (launchd), not ${platform}. Start voxd with "vox daemon start" instead.`);
}

/** Where the service files go for this user. */
export function serviceFilePaths(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string[] {
  if (serviceManager(platform) === 'launchd') {
    return [join(home, 'Library', 'LaunchAgents', `${SERVICE_LABEL}.plist`)];
  }
  // systemd reads $XDG_CONFIG_HOME/systemd/user, and ~/.config/systemd/user when it is unset.
  const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  const dir = join(config, 'systemd', 'user');
  return [join(dir, SYSTEMD_SERVICE), join(dir, SYSTEMD_SOCKET)];
}

/** Render the files for a platform. Pure: paths and contents only. */
export function renderServiceFiles(
  platform: NodeJS.Platform,
  values: ServiceValues,
  templates: Templates,
  paths: readonly string[],
): ServiceFile[] {
  const v = values as unknown as Record<string, string | undefined>;
  if (serviceManager(platform) === 'launchd') {
    return [{ path: paths[0]!, contents: renderTemplate(templates.plist, v, escapeXml) }];
  }
  return [
    { path: paths[0]!, contents: renderTemplate(templates.service, v, escapeSystemd) },
    { path: paths[1]!, contents: renderTemplate(templates.socket, v, escapeSystemd) },
  ];
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
  const command = r.manager === 'systemd' ? ['systemctl', '--user', 'is-system-running'] : ['launchctl', 'print', `gui/${r.uid}`];
  const res = await run.run(command);
  if (res.error) return { manager: r.manager, ok: false, command, detail: res.error.code === 'ENOENT' ? `${command[0]} is not installed` : `"${command.join(' ')}" failed: ${res.error.message}` };
  if (r.manager === 'systemd') {
    const state = res.stdout.trim().split('\n')[0] ?? '';
    if (WORKING_STATES.has(state)) return { manager: r.manager, ok: true, command, detail: `the user manager is ${state}` };
    const why = firstLine(res.stderr);
    return { manager: r.manager, ok: false, command, detail: `"${command.join(' ')}" says ${state ? `"${state}"` : `nothing (exit ${res.code})`}${why ? `: ${why}` : ''}` };
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
  const what = manager === 'systemd' ? 'no working systemd user manager' : 'no launchd GUI session (run it from a Terminal window of your desktop login, not over ssh)';
  return (
    `${what}: ${detail}. Nothing was installed or stopped. Without a service manager, voxd still runs: ` +
    'clients start it on demand (nothing to do; "vox daemon start" starts it now), or run "voxd" under your own supervisor (a container init, runit, supervisord).'
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
        warnings.push(`${describeFailure(['systemctl', '--user', 'try-restart', SYSTEMD_SERVICE], restart)}; run "vox daemon restart".`);
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
        warnings.push(`${describeFailure(argv, res)}. The unit files are removed; a voxd already running keeps running until "vox daemon stop" or logout.`);
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
    const hint = r.manager === 'systemd' ? ' See "journalctl --user -u voxd".' : ` See the logs in ${homePaths(voxHome(r.env, r.platform, r.home)).logs}.`;
    throw new ServiceError(`${describeFailure(run.commands.at(-1)!, res)}.${hint}`, managerUnavailable(res));
  }
  return { manager: r.manager, files: r.paths, commands: run.commands, activated: true, warnings: [] };
}
