/**
 * The service files of voxd: a systemd user unit with socket activation on
 * Linux, a LaunchAgent on macOS, rendered from templates. Installing them
 * and driving the service manager is service.ts.
 *
 * Design notes:
 * - The templates live in the repository's `config/` so that they can be read
 *   and reviewed as plain files; rendering them is a pure function.
 * - The unit carries the installing user's audio session (XDG_RUNTIME_DIR,
 *   PULSE_SERVER, DBUS_SESSION_BUS_ADDRESS). A user service without it starts
 *   fine and plays nothing: the reference implementation's worst outage.
 * - Absolute paths to node and voxd, because a service manager has no shell
 *   PATH, and nvm-style installs keep node outside the default one.
 * - A variable that is unset or points nowhere (an XDG_RUNTIME_DIR such as
 *   /run/user/0 that does not exist, a PULSE_SERVER or bus socket that is not
 *   there) is left out of the unit, with a warning: a wrong value is worse
 *   than none.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homePaths, voxHome } from '@vox/protocol';
import { settingsDir } from '@vox/protocol/settings';
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
  const runtime =
    set('XDG_RUNTIME_DIR') ?? (platform === 'darwin' || !exists(`/run/user/${uid}`) ? undefined : `/run/user/${uid}`);
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
export function sessionTarget(
  name: string,
  value: string,
  exists: (path: string) => boolean = existsSync,
): boolean | undefined {
  let path: string | undefined;
  if (name === 'XDG_RUNTIME_DIR') path = value;
  else if (name === 'PULSE_SERVER')
    path = /^unix:(\/[^\s]*)/.exec(value)?.[1] ?? (value.startsWith('/') ? value : undefined);
  else if (name === 'DBUS_SESSION_BUS_ADDRESS') path = /(?:^|[;,:])path=([^,;]+)/.exec(value)?.[1];
  if (path === undefined) return undefined;
  return exists(path);
}

/** The session variables of `env` that are set but point nowhere, as warnings. */
export function missingSessionTargets(
  env: NodeJS.ProcessEnv,
  exists: (path: string) => boolean = existsSync,
): string[] {
  return SESSION_VARIABLES.filter((n) => env[n] && sessionTarget(n, env[n]!, exists) === false).map(
    (n) =>
      `${n}=${env[n]} points to nothing here, so it is left out of the service file; run "vox daemon install" again from a shell of your desktop session if voxd plays nothing.`,
  );
}

const SESSION_VARIABLES = ['XDG_RUNTIME_DIR', 'PULSE_SERVER', 'DBUS_SESSION_BUS_ADDRESS'] as const;

function noNewline(name: string, value: string): string {
  if (/[\n\r\0]/.test(value))
    throw new ServiceError(`${name} contains a line break or NUL; it cannot go into a service file.`);
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
  throw new ServiceError(
    `vox daemon install supports Linux (systemd) and macOS (launchd), not ${platform}. Start voxd with "vox daemon start" instead.`,
  );
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
