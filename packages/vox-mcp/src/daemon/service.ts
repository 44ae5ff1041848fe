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
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
  serviceValues,
  SYSTEMD_SERVICE,
  SYSTEMD_SOCKET,
  type ServiceManager,
} from './service-files.js';
import {
  describeFailure,
  managerUnavailable,
  probeManager,
  refusal,
  resolve,
  Runner,
  type ExecResult,
  type ServiceOptions,
} from './service-manager.js';

// What callers of the service used from here before the manager had its own module.
export {
  checkServiceManager,
  defaultExec,
  refusal,
  type Exec,
  type ExecResult,
  type ManagerCheck,
  type ServiceOptions,
} from './service-manager.js';

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
