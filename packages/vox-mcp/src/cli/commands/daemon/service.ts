/**
 * The user service, for the `vox daemon` actions: whether this platform has
 * one, installing and removing it (../../../daemon/service.ts writes the
 * files and drives systemd or launchd), and acting through its manager.
 */
import { ServiceError, serviceManager, type ServiceManager } from '../../../daemon/service-files.js';
import {
  checkServiceManager,
  controlService,
  installService,
  refusal,
  serviceInstalled,
  uninstallService,
  type ServiceOptions,
} from '../../../daemon/service.js';
import { EXIT } from '../../context.js';
import { Failure, type Io } from './io.js';
import { reportRunning, running, stopByPid, waitHealthy, waitPortFree } from './process.js';

export function supported(): ServiceManager | undefined {
  try {
    return serviceManager(process.platform);
  } catch {
    return undefined;
  }
}

/**
 * Run an action through the service manager. False when the manager cannot be
 * reached (files installed on a machine or session without a user systemd):
 * the caller then runs voxd itself rather than leave the user without speech.
 */
export async function viaManager(io: Io, action: 'start' | 'stop' | 'restart', opts: ServiceOptions): Promise<boolean> {
  try {
    await controlService(action, opts);
    return true;
  } catch (err) {
    if (err instanceof ServiceError && err.managerUnavailable) {
      io.warn(
        `the service is installed but its manager is not reachable (${err.message.replace(/\.$/, '')}); acting on voxd directly.`,
      );
      return false;
    }
    throw err;
  }
}

export async function install(io: Io, opts: ServiceOptions): Promise<number> {
  const manager = supported();
  if (!manager)
    throw new Failure(
      `vox daemon install supports Linux (systemd) and macOS (launchd), not ${process.platform}. Use "vox daemon start".`,
      EXIT.USAGE,
    );
  // Before anything is stopped or written: without a working manager, the
  // running voxd must keep running and nothing half-installed is left behind.
  const check = await checkServiceManager(opts);
  io.result.manager = { name: manager, ok: check.ok, detail: check.detail };
  if (!check.ok) throw new Failure(refusal(manager, check.detail), EXIT.UNREACHABLE);
  if (!serviceInstalled(opts)) {
    // A voxd that a client started holds the port the service needs.
    const r = running(io.ctx.env);
    if (r?.alive) {
      io.say(`Stopping the voxd that is running (pid ${r.state.pid}) so that ${manager} can take over.`);
      await stopByPid(io, r);
      await waitPortFree(io, r.state);
    }
  }
  const report = await installService(opts);
  io.result.service = {
    installed: true,
    manager,
    files: report.files,
    activated: report.activated,
    commands: report.commands,
  };
  for (const f of report.files) io.say(`Wrote ${f}`);
  for (const w of report.warnings) io.warn(w);
  if (!report.activated) {
    io.say(`The service files are in place but ${manager} did not start them (see the warning).`);
    return EXIT.OK;
  }
  io.say(
    manager === 'systemd' ? 'Enabled voxd.socket and voxd.service (systemd --user).' : 'Loaded com.vox.voxd (launchd).',
  );
  const version = await waitHealthy(io);
  if (!version) {
    io.warn(
      `voxd did not answer within ${io.timeoutMs / 1000} s. ${manager === 'systemd' ? 'See "journalctl --user -u voxd".' : 'See the logs in VOX_HOME/logs.'}`,
    );
    return EXIT.UNREACHABLE;
  }
  reportRunning(io, ` under ${manager}`, version);
  return EXIT.OK;
}

export async function uninstall(io: Io, opts: ServiceOptions): Promise<number> {
  if (!supported() || !serviceInstalled(opts)) {
    io.result.service = { installed: false };
    io.say('The vox service is not installed.');
    return EXIT.OK;
  }
  const report = await uninstallService(opts);
  io.result.service = { installed: false, files: report.files, commands: report.commands };
  for (const f of report.files) io.say(`Removed ${f}`);
  for (const w of report.warnings) io.warn(w);
  io.say('voxd is no longer a service; clients start it on demand again.');
  return EXIT.OK;
}
