/** `vox daemon start|stop|restart|status`: through the service manager when the service is installed, else on voxd directly. */
import { homedir } from 'node:os';
import { compareVersions, VERSION, pidAlive } from '@vox/protocol';
import { startDaemon } from '../../../daemon/autostart.js';
import { readDaemonState } from '../../../daemon/http.js';
import { health } from '../../../client/endpoint.js';
import { serviceFilePaths } from '../../../daemon/service-files.js';
import { clearStopMarker, writeStopMarker } from '../../../daemon/stop-marker.js';
import { serviceInstalled, type ServiceOptions } from '../../../daemon/service.js';
import { EXIT } from '../../context.js';
import { Failure, type Io } from './io.js';
import { reportRunning, running, stopByPid, waitFor, waitHealthy, waitPortFree } from './process.js';
import { supported, viaManager } from './service.js';

export async function start(io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
  const h = await health(io.ctx.env, 1000);
  if (h?.ok) {
    reportRunning(io, ' already', h.version);
    return EXIT.OK;
  }
  if (managed) managed = await viaManager(io, 'start', opts);
  if (!managed) {
    try {
      await startDaemon(io.ctx.env, { timeoutMs: io.timeoutMs, passSettings: true });
    } catch (err) {
      throw new Failure(`could not start voxd: ${(err as Error).message}`, EXIT.UNREACHABLE);
    }
  }
  const version = await waitHealthy(io);
  if (!version)
    throw new Failure(
      `voxd did not answer within ${io.timeoutMs / 1000} s. See the logs in VOX_HOME/logs.`,
      EXIT.UNREACHABLE,
    );
  reportRunning(io, managed ? ` under ${supported()}` : '', version);
  return EXIT.OK;
}

export async function stop(io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
  const r = running(io.ctx.env);
  // Before the signal: a caller waiting on this voxd re-sends when it goes, and must not start another.
  if (r?.alive) writeStopMarker(io.ctx.env, 'stop', r.state.pid);
  if (managed) managed = await viaManager(io, 'stop', opts);
  if (!managed) {
    await stopByPid(io, r);
    io.result.daemon = { running: false };
    return EXIT.OK;
  }
  if (r?.alive && !(await waitFor(() => !pidAlive(r.state.pid), io.timeoutMs))) {
    throw new Failure(`voxd (pid ${r.state.pid}) did not exit within ${io.timeoutMs / 1000} s.`, EXIT.INTERNAL);
  }
  io.result.daemon = { running: false };
  io.say(r?.alive ? `Stopped voxd (pid ${r.state.pid}).` : 'voxd is stopped.');
  if (supported() === 'systemd') {
    io.say(
      'voxd.socket stays open, so the next request starts voxd again; "systemctl --user stop voxd.socket" keeps it down.',
    );
  }
  return EXIT.OK;
}

export async function restart(io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
  const before = running(io.ctx.env);
  const oldPid = before?.alive ? before.state.pid : undefined;
  const isNew = () => oldPid === undefined || readDaemonState(io.ctx.env)?.pid !== oldPid;
  // Callers waiting on the old voxd wait for the new one instead of starting their own, which would take its port.
  writeStopMarker(io.ctx.env, 'restart', oldPid);
  try {
    if (managed) managed = await viaManager(io, 'restart', opts);
    if (!managed) {
      if (before?.alive) {
        await stopByPid(io, before);
        // A new voxd for this VOX_HOME on the port (one a client started all the same) is the one wanted.
        if (!(await healthyNew(io, isNew))) await waitPortFree(io, before.state);
      }
      try {
        await startDaemon(io.ctx.env, { timeoutMs: io.timeoutMs, passSettings: true });
      } catch (err) {
        throw new Failure(`could not start voxd: ${(err as Error).message}`, EXIT.UNREACHABLE);
      }
    }
  } finally {
    clearStopMarker(io.ctx.env);
  }
  const version = await waitHealthy(io, isNew);
  if (!version)
    throw new Failure(
      `the new voxd did not answer within ${io.timeoutMs / 1000} s. See the logs in VOX_HOME/logs.`,
      EXIT.UNREACHABLE,
    );
  reportRunning(io, managed ? ` under ${supported()}` : '', version);
  return EXIT.OK;
}

async function healthyNew(io: Io, isNew: () => boolean): Promise<boolean> {
  return isNew() && (await health(io.ctx.env, 1000))?.ok === true;
}

export async function status(io: Io, opts: ServiceOptions): Promise<number> {
  const manager = supported();
  const installed = manager ? serviceInstalled(opts) : false;
  const files = manager ? serviceFilePaths(process.platform, io.ctx.env, opts.home ?? homedir()) : [];
  const r = running(io.ctx.env);
  const h = await health(io.ctx.env, 1000);
  const state = r?.state;

  const daemon: Record<string, unknown> = { running: h !== undefined, healthy: h?.ok ?? false, version: h?.version };
  if (state)
    Object.assign(daemon, {
      pid: state.pid,
      host: state.host,
      port: state.port,
      startedAt: state.startedAt,
      stale: r?.alive === false,
    });
  io.result.daemon = daemon;
  io.result.client = { version: VERSION };
  io.result.service = { supported: manager !== undefined, manager, installed, files: installed ? files : [] };

  if (h) {
    const where = state && r?.alive ? ` (pid ${state.pid}, ${state.host}:${state.port}, since ${state.startedAt})` : '';
    io.say(`voxd: ${h.ok ? 'running' : 'running but unhealthy'}, version ${h.version}${where}`);
  } else if (r && !r.alive) {
    io.say(`voxd: not running (${r.reason}; voxd.json is stale and safe to delete)`);
  } else if (r?.alive) {
    io.say(`voxd: not answering (pid ${r.state.pid} is alive, ${r.state.host}:${r.state.port}); see VOX_HOME/logs`);
  } else {
    io.say('voxd: not running');
  }
  io.say(`vox: version ${VERSION}`);
  if (!manager) io.say(`service: not supported on ${process.platform}`);
  else if (installed) io.say(`service: installed (${manager}: ${files.join(', ')})`);
  else io.say('service: not installed ("vox daemon install" runs voxd at login)');
  if (h && compareVersions(h.version, VERSION) < 0) {
    io.warn(`voxd ${h.version} is older than this vox (${VERSION}); run "vox daemon restart".`);
  } else if (h && compareVersions(h.version, VERSION) > 0) {
    io.warn(`voxd ${h.version} is newer than this vox (${VERSION}); this client may be out of date.`);
  }
  return h?.ok ? EXIT.OK : EXIT.UNREACHABLE;
}
