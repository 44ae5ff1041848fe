/**
 * `vox config [--json]`: the configuration in effect here, one line per key with
 * where its value came from. `vox config check`: validate `.vox/config.md`.
 */
import { printable } from '@vox/protocol';
import { CONFIG_FILE, CONFIG_KEYS, type ResolvedConfig } from '../../project/config-schema.js';
import { ConfigError } from '../../project/config-validation.js';
import { configView, resolveConfig } from '../../project/config.js';
import { defineCommand, pickAction } from '../command.js';
import { type CliContext, EXIT } from '../context.js';

const USAGE = `Usage: vox config [--json]
       vox config check

Show the configuration in effect in this directory, from the nearest
${CONFIG_FILE} above it (or the defaults), one line per key:
  key = value  (source)
where source is "default" or the file the value came from.

  check     validate the file; exit 0 ("ok: FILE") or 7 with every problem
  --json    print {file, projectDir, projectName, values, sources, pronunciations}
  -h, --help

Every key and its allowed values: docs/config.md.
`;

export const command = defineCommand({
  name: 'config',
  usage: USAGE,
  flags: { json: { type: 'boolean' } },
  maxArgs: 1,
  async run({ ctx, flags: values, args }) {
    const sub = args.length ? pickAction(args, ['check'] as const) : undefined;

    let config: ResolvedConfig;
    try {
      config = await resolveConfig(ctx.cwd);
    } catch (err) {
      // The problems alone, each line naming the file (vox config check's report), without the "vox config:" prefix.
      if (err instanceof ConfigError) {
        ctx.stderr.write(`${err.message}\n`);
        return EXIT.CONFIG_INVALID;
      }
      throw err;
    }

    if (sub === 'check') {
      if (values.json) ctx.stdout.write(`${JSON.stringify({ ok: true, file: config.file ?? null })}\n`);
      else if (config.file) ctx.stdout.write(`ok: ${printable(config.file)}\n`);
      else ctx.stdout.write(`ok: no ${CONFIG_FILE} in ${printable(ctx.cwd)} or above; the defaults apply\n`);
      return EXIT.OK;
    }
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify(configView(config), null, 2)}\n`);
      return EXIT.OK;
    }
    print(ctx, config);
    return EXIT.OK;
  },
});
export const run = command.run;

function print(ctx: CliContext, config: ResolvedConfig): void {
  const out: string[] = [];
  // Values, words and paths come from files: printable() keeps their control characters off the terminal.
  out.push(
    config.file
      ? `# ${printable(config.file)} (project "${printable(config.projectName)}")`
      : `# no ${CONFIG_FILE} in ${printable(config.projectDir)} or above; defaults (project "${printable(config.projectName)}")`,
  );
  for (const key of CONFIG_KEYS) {
    const value = config.values[key];
    out.push(
      `${key} = ${value === undefined ? '(unset)' : printable(JSON.stringify(value))}  (${printable(config.sources[key])})`,
    );
  }
  if (config.pronunciations.length) {
    out.push(`# pronunciations (${printable(config.file ?? '')}):`);
    for (const p of config.pronunciations) out.push(`#   ${printable(p.word)} → ${printable(p.say)}`);
  }
  ctx.stdout.write(`${out.join('\n')}\n`);
}
