/**
 * `vox daemon install|uninstall|start|stop|restart|status`: voxd's lifecycle.
 *
 * When the service is installed, the service manager owns voxd and every
 * action goes through it; otherwise vox starts voxd itself (as any client
 * would) and stops it by the pid in VOX_HOME/voxd.json. A pid is signalled
 * only when it still looks like voxd: after a crash and a reboot, voxd.json
 * can name a pid that now belongs to another program.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { DEFAULT_HOST, DEFAULT_PORT, VERSION, pidAlive, type DaemonState } from '@vox/protocol';
import { health, readDaemonState, startDaemon } from '../../daemon/client.js';
import { compareVersions } from '../report.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../context.js';
import { defineCommand, pickAction } from '../command.js';
import { suggestion, UsageError } from '../usage.js';
import {
  ServiceError,
  checkServiceManager,
  controlService,
  installService,
  refusal,
  serviceFilePaths,
  serviceInstalled,
  serviceManager,
  uninstallService,
  type ServiceManager,
  type ServiceOptions,
} from '../../daemon/service.js';

const USAGE = `Usage: vox daemon <action> [options]

Actions:
  install     run voxd as a user service (systemd on Linux, launchd on macOS)
  uninstall   stop and remove the service
  start       start voxd (through the service when installed)
  stop        stop voxd
  restart     stop voxd, wait for the port, start it, wait until it answers
  status      voxd's and this client's versions, pid, port and the service
  config [get KEY | set KEY VALUE | unset KEY]
              voxd's settings file: list every setting with its source (file,
              env or default), or read, change or remove one (keys: audio,
              engine, port, host, logLevel, listen.recorder, transcriber.url,
              transcriber.model, transcriber.timeoutMs, sherpa.idleUnloadMs;
              docs/operations.md)

Options:
  --timeout SECONDS   how long to wait for voxd to start or exit (default 10)
  --json              machine-readable output
  -h, --help          show this help
`;

const ACTIONS = ['install', 'uninstall', 'start', 'stop', 'restart', 'status', 'config'] as const;
type Action = (typeof ACTIONS)[number];

/** A failure to report: message for stderr and the exit code. */
class Failure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}


/** Best effort: true unless the process's command line shows it is not voxd. */
function looksLikeVoxd(pid: number): boolean {
  let cmdline: string | undefined;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    try {
      cmdline = execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8', timeout: 2000 });
    } catch {
      return true;
    }
  }
  return !cmdline.trim() || /voxd/.test(cmdline);
}

/** True when nothing listens on host:port any more. */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** After voxd exits, wait until the kernel lets go of its port. */
async function waitPortFree(io: Io, state: DaemonState): Promise<void> {
  const host = state.host || DEFAULT_HOST;
  const port = state.port || DEFAULT_PORT;
  if (!(await waitFor(() => portFree(host, port), io.timeoutMs, 200))) {
    throw new Failure(`port ${port} on ${host} is still in use after voxd exited; another program holds it ("ss -ltnp" shows which).`, EXIT.UNREACHABLE);
  }
}

type Running = { state: DaemonState; alive: true } | { state: DaemonState; alive: false; reason: string } | undefined;

/** What voxd.json says, checked against the process table. */
function running(env: NodeJS.ProcessEnv): Running {
  const state = readDaemonState(env);
  if (!state) return undefined;
  if (!pidAlive(state.pid)) return { state, alive: false, reason: `pid ${state.pid} in voxd.json has exited` };
  if (!looksLikeVoxd(state.pid)) return { state, alive: false, reason: `pid ${state.pid} in voxd.json is another program now` };
  return { state, alive: true };
}

interface Io {
  ctx: CliContext;
  json: boolean;
  timeoutMs: number;
  /** Facts for --json, one object per action. */
  result: Record<string, unknown>;
  say(line: string): void;
  warn(line: string): void;
}

function makeIo(ctx: CliContext, json: boolean, timeoutMs: number): Io {
  const warnings: string[] = [];
  const result: Record<string, unknown> = { warnings };
  return {
    ctx,
    json,
    timeoutMs,
    result,
    say: (line) => {
      if (!json) ctx.stdout.write(`${line}\n`);
    },
    warn: (line) => {
      warnings.push(line);
      if (!json) ctx.stderr.write(`warning: ${line}\n`);
    },
  };
}

function supported(): ServiceManager | undefined {
  try {
    return serviceManager(process.platform);
  } catch {
    return undefined;
  }
}

/** SIGTERM the unmanaged voxd and wait until it has exited. */
async function stopByPid(io: Io, r: Running): Promise<void> {
  if (!r) {
    io.say('voxd is not running.');
    return;
  }
  if (!r.alive) {
    io.say(`voxd is not running (${r.reason}; the file is stale and safe to delete).`);
    return;
  }
  const { pid } = r.state;
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return;
    throw new Failure(`cannot signal voxd (pid ${pid}): ${(err as Error).message}. Is it running as another user?`, EXIT.INTERNAL);
  }
  if (!(await waitFor(() => !pidAlive(pid), io.timeoutMs))) {
    throw new Failure(`voxd (pid ${pid}) did not exit within ${io.timeoutMs / 1000} s of SIGTERM. Force it with: kill -9 ${pid}`, EXIT.INTERNAL);
  }
  io.say(`Stopped voxd (pid ${pid}).`);
}

/** Wait until voxd answers its health check; returns its version. */
async function waitHealthy(io: Io, extra: () => boolean = () => true): Promise<string | undefined> {
  let version: string | undefined;
  const ok = await waitFor(
    async () => {
      const h = await health(io.ctx.env, 1000);
      if (h?.ok && extra()) version = h.version;
      return version !== undefined;
    },
    io.timeoutMs,
    200,
  );
  return ok ? version : undefined;
}

function reportRunning(io: Io, how: string, version: string | undefined): void {
  const state = readDaemonState(io.ctx.env);
  io.result.daemon = { running: true, version, pid: state?.pid, host: state?.host, port: state?.port };
  const where = state ? ` (pid ${state.pid}, ${state.host}:${state.port})` : '';
  io.say(`voxd ${version ?? '?'} is running${where}${how}.`);
  if (version && compareVersions(version, VERSION) < 0) {
    io.warn(`voxd ${version} is older than this vox (${VERSION}); run "vox daemon restart".`);
  }
}

/**
 * Run an action through the service manager. False when the manager cannot be
 * reached (files installed on a machine or session without a user systemd):
 * the caller then runs voxd itself rather than leave the user without speech.
 */
async function viaManager(io: Io, action: 'start' | 'stop' | 'restart', opts: ServiceOptions): Promise<boolean> {
  try {
    await controlService(action, opts);
    return true;
  } catch (err) {
    if (err instanceof ServiceError && err.managerUnavailable) {
      io.warn(`the service is installed but its manager is not reachable (${err.message.replace(/\.$/, '')}); acting on voxd directly.`);
      return false;
    }
    throw err;
  }
}

async function install(io: Io, opts: ServiceOptions): Promise<number> {
  const manager = supported();
  if (!manager) throw new Failure(`vox daemon install supports Linux (systemd) and macOS (launchd), not ${process.platform}. Use "vox daemon start".`, EXIT.USAGE);
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
  io.result.service = { installed: true, manager, files: report.files, activated: report.activated, commands: report.commands };
  for (const f of report.files) io.say(`Wrote ${f}`);
  for (const w of report.warnings) io.warn(w);
  if (!report.activated) {
    io.say(`The service files are in place but ${manager} did not start them (see the warning).`);
    return EXIT.OK;
  }
  io.say(manager === 'systemd' ? 'Enabled voxd.socket and voxd.service (systemd --user).' : 'Loaded com.vox.voxd (launchd).');
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

async function uninstall(io: Io, opts: ServiceOptions): Promise<number> {
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

async function start(io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
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
  if (!version) throw new Failure(`voxd did not answer within ${io.timeoutMs / 1000} s. See the logs in VOX_HOME/logs.`, EXIT.UNREACHABLE);
  reportRunning(io, managed ? ` under ${supported()}` : '', version);
  return EXIT.OK;
}

async function stop(io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
  const r = running(io.ctx.env);
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
    io.say('voxd.socket stays open, so the next request starts voxd again; "systemctl --user stop voxd.socket" keeps it down.');
  }
  return EXIT.OK;
}

async function restart(io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
  const before = running(io.ctx.env);
  const oldPid = before?.alive ? before.state.pid : undefined;
  const isNew = () => oldPid === undefined || readDaemonState(io.ctx.env)?.pid !== oldPid;
  if (managed) managed = await viaManager(io, 'restart', opts);
  if (!managed) {
    if (before?.alive) {
      await stopByPid(io, before);
      await waitPortFree(io, before.state);
    }
    try {
      await startDaemon(io.ctx.env, { timeoutMs: io.timeoutMs, passSettings: true });
    } catch (err) {
      throw new Failure(`could not start voxd: ${(err as Error).message}`, EXIT.UNREACHABLE);
    }
  }
  const version = await waitHealthy(io, isNew);
  if (!version) throw new Failure(`the new voxd did not answer within ${io.timeoutMs / 1000} s. See the logs in VOX_HOME/logs.`, EXIT.UNREACHABLE);
  reportRunning(io, managed ? ` under ${supported()}` : '', version);
  return EXIT.OK;
}

async function status(io: Io, opts: ServiceOptions): Promise<number> {
  const manager = supported();
  const installed = manager ? serviceInstalled(opts) : false;
  const files = manager ? serviceFilePaths(process.platform, io.ctx.env, opts.home ?? homedir()) : [];
  const r = running(io.ctx.env);
  const h = await health(io.ctx.env, 1000);
  const state = r?.state;

  const daemon: Record<string, unknown> = { running: h !== undefined, healthy: h?.ok ?? false, version: h?.version };
  if (state) Object.assign(daemon, { pid: state.pid, host: state.host, port: state.port, startedAt: state.startedAt, stale: r?.alive === false });
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

export const command = defineCommand({
  name: 'daemon',
  usage: USAGE,
  flags: { json: { type: 'boolean' }, timeout: { type: 'duration', unit: 's', positive: true } },
  // config takes up to three more: set KEY VALUE.
  maxArgs: 4,
  async run({ ctx, flags: values, args }) {
    const action = pickAction(args, ACTIONS);
    if (action !== 'config' && args.length > 1) throw new UsageError(`unexpected argument ${args.slice(1).map((a) => `"${a}"`).join(' ')}`);
    const io = makeIo(ctx, values.json === true, values.timeout ?? 10_000);
    if (action === 'config') return configCommand(io, args.slice(1));
    const opts: ServiceOptions = { env: ctx.env };
    if (ctx.env.HOME) opts.home = ctx.env.HOME;
    const managed = supported() !== undefined && serviceInstalled(opts);

    let code: number;
    try {
      code = await dispatch(action, io, opts, managed);
    } catch (err) {
      // An action's failure names the action, and with --json is part of its object; anything else is reported as every command's.
      if (!(err instanceof Failure || err instanceof ServiceError)) throw err;
      code = err instanceof Failure ? err.exitCode : EXIT.UNREACHABLE;
      io.result.error = err.message;
      if (!io.json) ctx.stderr.write(`vox daemon ${action}: ${err.message}\n`);
    }
    if (io.json) ctx.stdout.write(`${JSON.stringify({ action, ...io.result })}\n`);
    return code;
  },
});
export const run = command.run;

const CONFIG_USAGE = 'Usage: vox daemon config [get KEY | set KEY VALUE | unset KEY] [--json]';

/** `vox daemon config ...`: exit 0, 2 for a bad key or value, 7 when the file itself is broken. */
async function configCommand(io: Io, args: string[]): Promise<number> {
  const settings = await import('../../daemon/daemon-settings.js');
  const { SettingsError, SETTING_KEYS, formatProblem } = await import('@vox/protocol/settings');
  const { ctx } = io;
  const [verb, key, ...rest] = args;
  const out = (o: unknown) => ctx.stdout.write(`${JSON.stringify(o)}\n`);
  const arity: Record<string, number> = { get: 1, set: 2, unset: 1 };
  if (verb !== undefined && (arity[verb] === undefined || key === undefined || rest.length !== arity[verb]! - 1)) {
    const known = verb !== undefined && arity[verb] !== undefined;
    throw new UsageError(`${known ? `config ${verb} takes ${verb === 'set' ? 'KEY VALUE' : 'KEY'}` : `config: expected get, set or unset, not "${verb}"${suggestion(verb!, ['get', 'set', 'unset'], true)}`} (keys: ${SETTING_KEYS.join(', ')}). ${CONFIG_USAGE}`);
  }
  const running = readDaemonState(ctx.env);
  const restartHint = running && pidAlive(running.pid) ? ' voxd reads it at start: run "vox daemon restart" to apply it now.' : ' voxd reads it at its next start.';
  try {
    if (verb === undefined) {
      const listing = settings.listSettings(ctx.env);
      if (io.json) {
        out({ action: 'config', file: listing.path, exists: listing.exists, settings: listing.settings, running: running ? { pid: running.pid, audio: running.audio, engine: running.engine, port: running.port, host: running.host, sources: running.sources } : null, problems: listing.problems.map(formatProblem) });
      } else {
        ctx.stdout.write(`settings file: ${listing.path}${listing.exists ? '' : ' (not created yet: every value is a default)'}\n`);
        const keyWidth = Math.max(...listing.settings.map((s) => s.key.length));
        const width = Math.max(...listing.settings.map((s) => String(s.value).length));
        for (const s of listing.settings) {
          const source = s.source === 'env' ? `env ${s.variable} (this shell only; an auto-started voxd uses ${s.fileValue !== undefined ? `the file's ${s.fileValue}` : 'the default'})` : s.source;
          ctx.stdout.write(`${s.key.padEnd(keyWidth)} ${String(s.value).padEnd(width)}  ${source}\n`);
        }
        if (running && pidAlive(running.pid) && running.audio !== undefined) {
          ctx.stdout.write(`running voxd (pid ${running.pid}): audio ${running.audio}, engine ${running.engine}, ${running.host}:${running.port}\n`);
        }
        for (const p of listing.problems) ctx.stderr.write(`vox daemon config: ${formatProblem(p)}\n`);
      }
      return listing.problems.length ? EXIT.CONFIG_INVALID : EXIT.OK;
    }
    if (verb === 'get') {
      const s = settings.getSetting(ctx.env, key!);
      if (io.json) out({ action: 'config', ...s });
      else ctx.stdout.write(`${s.value}\n`);
      return EXIT.OK;
    }
    if (verb === 'set') {
      const r = settings.setSetting(ctx.env, key!, rest[0]!, ctx.cwd);
      if (io.json) out({ action: 'config', ...r, problems: r.problems.map(formatProblem) });
      else {
        ctx.stdout.write(`${r.key}: ${r.value}${r.previous !== undefined && r.previous !== r.value ? ` (was ${r.previous})` : ''} in ${r.path}.${restartHint}\n`);
        const variable = (await import('@vox/protocol/settings')).SETTINGS_SCHEMA[r.key].env;
        if (ctx.env[variable]) ctx.stderr.write(`vox daemon config: note: ${variable}=${ctx.env[variable]} in this shell overrides the file for a voxd you start from here with "voxd".\n`);
        for (const p of r.problems) ctx.stderr.write(`vox daemon config: still wrong: ${formatProblem(p)}\n`);
      }
      return EXIT.OK;
    }
    const r = settings.unsetSetting(ctx.env, key!);
    if (io.json) out({ action: 'config', ...r });
    else ctx.stdout.write(r.removed ? `Removed ${r.key} from ${r.path}; voxd uses the default, ${r.value}.${restartHint}\n` : `${r.path} does not set ${r.key}; voxd uses the default, ${r.value}.\n`);
    return EXIT.OK;
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    const broken = err.problems.some((p) => p.key === undefined && !p.message.startsWith('unknown key'));
    if (io.json) out({ action: 'config', error: err.message, problems: err.problems });
    else for (const p of err.problems) ctx.stderr.write(`vox daemon config: ${formatProblem(p)}\n`);
    return broken ? EXIT.CONFIG_INVALID : EXIT.USAGE;
  }
}

function dispatch(action: Action, io: Io, opts: ServiceOptions, managed: boolean): Promise<number> {
  switch (action) {
    case 'install':
      return install(io, opts);
    case 'uninstall':
      return uninstall(io, opts);
    case 'start':
      return start(io, opts, managed);
    case 'stop':
      return stop(io, opts, managed);
    case 'restart':
      return restart(io, opts, managed);
    case 'status':
      return status(io, opts);
    case 'config':
      return configCommand(io, []);
  }
}
