/** `vox daemon config [get KEY | set KEY VALUE | unset KEY]`: voxd's settings file (docs/operations.md). */
import { pidAlive } from '@vox/protocol';
import { readDaemonState } from '../../../daemon/http.js';
import { EXIT } from '../../context.js';
import { UsageError, suggestion } from '../../usage.js';
import type { Io } from './io.js';

const CONFIG_USAGE = 'Usage: vox daemon config [get KEY | set KEY VALUE | unset KEY] [--json]';

/** `vox daemon config ...`: exit 0, 2 for a bad key or value, 7 when the file itself is broken. */
export async function configCommand(io: Io, args: string[]): Promise<number> {
  const settings = await import('../../../daemon/daemon-settings.js');
  const { SettingsError, SETTING_KEYS, formatProblem } = await import('@vox/protocol/settings');
  const { ctx } = io;
  const [verb, key, ...rest] = args;
  const out = (o: unknown) => ctx.stdout.write(`${JSON.stringify(o)}\n`);
  const arity: Record<string, number> = { get: 1, set: 2, unset: 1 };
  if (verb !== undefined && (arity[verb] === undefined || key === undefined || rest.length !== arity[verb]! - 1)) {
    const known = verb !== undefined && arity[verb] !== undefined;
    throw new UsageError(
      `${known ? `config ${verb} takes ${verb === 'set' ? 'KEY VALUE' : 'KEY'}` : `config: expected get, set or unset, not "${verb}"${suggestion(verb!, ['get', 'set', 'unset'], true)}`} (keys: ${SETTING_KEYS.join(', ')}). ${CONFIG_USAGE}`,
    );
  }
  const running = readDaemonState(ctx.env);
  const restartHint =
    running && pidAlive(running.pid)
      ? ' voxd reads it at start: run "vox daemon restart" to apply it now.'
      : ' voxd reads it at its next start.';
  try {
    if (verb === undefined) {
      const listing = settings.listSettings(ctx.env);
      if (io.json) {
        out({
          action: 'config',
          file: listing.path,
          exists: listing.exists,
          settings: listing.settings,
          running: running
            ? {
                pid: running.pid,
                audio: running.audio,
                engine: running.engine,
                port: running.port,
                host: running.host,
                sources: running.sources,
              }
            : null,
          problems: listing.problems.map(formatProblem),
        });
      } else {
        ctx.stdout.write(
          `settings file: ${listing.path}${listing.exists ? '' : ' (not created yet: every value is a default)'}\n`,
        );
        const keyWidth = Math.max(...listing.settings.map((s) => s.key.length));
        const width = Math.max(...listing.settings.map((s) => String(s.value).length));
        for (const s of listing.settings) {
          const source =
            s.source === 'env'
              ? `env ${s.variable} (this shell only; an auto-started voxd uses ${s.fileValue !== undefined ? `the file's ${s.fileValue}` : 'the default'})`
              : s.source;
          ctx.stdout.write(`${s.key.padEnd(keyWidth)} ${String(s.value).padEnd(width)}  ${source}\n`);
        }
        if (running && pidAlive(running.pid) && running.audio !== undefined) {
          ctx.stdout.write(
            `running voxd (pid ${running.pid}): audio ${running.audio}, engine ${running.engine}, ${running.host}:${running.port}\n`,
          );
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
        ctx.stdout.write(
          `${r.key}: ${r.value}${r.previous !== undefined && r.previous !== r.value ? ` (was ${r.previous})` : ''} in ${r.path}.${restartHint}\n`,
        );
        const variable = (await import('@vox/protocol/settings')).SETTINGS_SCHEMA[r.key].env;
        if (ctx.env[variable])
          ctx.stderr.write(
            `vox daemon config: note: ${variable}=${ctx.env[variable]} in this shell overrides the file for a voxd you start from here with "voxd".\n`,
          );
        for (const p of r.problems) ctx.stderr.write(`vox daemon config: still wrong: ${formatProblem(p)}\n`);
      }
      return EXIT.OK;
    }
    const r = settings.unsetSetting(ctx.env, key!);
    if (io.json) out({ action: 'config', ...r });
    else
      ctx.stdout.write(
        r.removed
          ? `Removed ${r.key} from ${r.path}; voxd uses the default, ${r.value}.${restartHint}\n`
          : `${r.path} does not set ${r.key}; voxd uses the default, ${r.value}.\n`,
      );
    return EXIT.OK;
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    const broken = err.problems.some((p) => p.key === undefined && !p.message.startsWith('unknown key'));
    if (io.json) out({ action: 'config', error: err.message, problems: err.problems });
    else for (const p of err.problems) ctx.stderr.write(`vox daemon config: ${formatProblem(p)}\n`);
    return broken ? EXIT.CONFIG_INVALID : EXIT.USAGE;
  }
}
