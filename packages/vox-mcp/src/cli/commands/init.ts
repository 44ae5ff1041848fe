/**
 * `vox init [--force]`: writes the commented template (config/config.md) to
 * `./.vox/config.md`. It never overwrites a file without `--force`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CONFIG_FILE } from '../../project/config-schema.js';
import { findConfigFile } from '../../project/config.js';
import { readTemplate, writeFileAtomic } from '../../project/config-writer.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';

const USAGE = `Usage: vox init [--force]

Write a commented ${CONFIG_FILE} in this directory: every key with its default,
commented out, and an empty pronunciations table (its examples are not
applied). Prints the file's path.

  --force   overwrite an existing ${CONFIG_FILE}
  -h, --help
`;

export const command = defineCommand({
  name: 'init',
  usage: USAGE,
  flags: { force: { type: 'boolean' } },
  async run({ ctx, flags: values }) {
    const dir = resolve(ctx.cwd);
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file) && !values.force) {
      ctx.stderr.write(`vox init: ${file} exists already; run "vox init --force" to replace it with the template.\n`);
      return EXIT.USAGE;
    }
    try {
      const template = readTemplate();
      mkdirSync(dirname(file), { recursive: true });
      writeFileAtomic(file, template);
    } catch (err) {
      ctx.stderr.write(`vox init: cannot write ${file}: ${(err as Error).message}\n`);
      return EXIT.INTERNAL;
    }
    ctx.stdout.write(`${file}\n`);
    const outer = findConfigFile(dirname(dir));
    if (outer) ctx.stderr.write(`vox init: note: below ${dir}, this file now takes the place of ${outer}.\n`);
    return EXIT.OK;
  },
});
export const run = command.run;
