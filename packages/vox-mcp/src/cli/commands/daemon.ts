/**
 * `vox daemon install|uninstall|start|stop|restart|status|config`: voxd's
 * lifecycle and settings. This module parses and dispatches; the actions are
 * in daemon/: the service (service.ts), start, stop, restart and status
 * (lifecycle.ts), voxd as a process (process.ts), its settings (settings.ts).
 *
 * When the service is installed, the service manager owns voxd and every
 * action goes through it; otherwise vox starts voxd itself (as any client
 * would) and stops it by the pid in VOX_HOME/voxd.json. A pid is signalled
 * only when it still looks like voxd: after a crash and a reboot, voxd.json
 * can name a pid that now belongs to another program.
 */
import { ServiceError } from '../../daemon/service-files.js';
import { serviceInstalled, type ServiceOptions } from '../../daemon/service.js';
import { defineCommand, pickAction } from '../command.js';
import { EXIT } from '../context.js';
import { UsageError } from '../usage.js';
import { Failure, makeIo, type Io } from './daemon/io.js';
import { restart, start, status, stop } from './daemon/lifecycle.js';
import { install, supported, uninstall } from './daemon/service.js';
import { configCommand } from './daemon/settings.js';

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
              engine, port, host, logLevel, listen.recorder, listen.vad,
              listen.bargeIn, transcriber.kind, transcriber.url, transcriber.model,
              transcriber.timeoutMs, sherpa.idleUnloadMs, attention,
              digestMs, quiet.hours, quiet.microphone;
              docs/operations.md)

Options:
  --timeout SECONDS   how long to wait for voxd to start or exit (default 10)
  --json              machine-readable output
  -h, --help          show this help
`;

const ACTIONS = ['install', 'uninstall', 'start', 'stop', 'restart', 'status', 'config'] as const;
type Action = (typeof ACTIONS)[number];

export const command = defineCommand({
  name: 'daemon',
  usage: USAGE,
  flags: { json: { type: 'boolean' }, timeout: { type: 'duration', unit: 's', positive: true } },
  // config takes up to three more: set KEY VALUE.
  maxArgs: 4,
  async run({ ctx, flags: values, args }) {
    const action = pickAction(args, ACTIONS);
    if (action !== 'config' && args.length > 1)
      throw new UsageError(
        `unexpected argument ${args
          .slice(1)
          .map((a) => `"${a}"`)
          .join(' ')}`,
      );
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
