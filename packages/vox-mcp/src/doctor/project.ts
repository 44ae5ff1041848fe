/** The check of this project: its `.vox/config.md` (Claude Code's side is claude.ts). */
import type { ResolvedConfig } from '../project/config-schema.js';
import { ConfigError } from '../project/config-validation.js';
import { resolveConfig } from '../project/config.js';
import type { Check } from './check.js';

export async function configCheck(cwd: string): Promise<{ check: Check; config?: ResolvedConfig }> {
  try {
    const config = await resolveConfig(cwd);
    if (!config.file)
      return {
        check: { name: 'config', level: 'ok', detail: `none, defaults apply (no .vox/config.md at or above ${cwd})` },
        config,
      };
    const v = config.values;
    return {
      check: {
        name: 'config',
        level: 'ok',
        detail: `${config.file} is valid (notify ${v.notify}, speak ${v.speak}, engine ${v.engine}${v.voice ? `, voice ${v.voice}` : ''})`,
      },
      config,
    };
  } catch (err) {
    if (err instanceof ConfigError) {
      const n = err.problems.length;
      const first = err.problems[0];
      return {
        check: {
          name: 'config',
          level: 'fail',
          detail: `${err.file} is invalid (${n} problem${n === 1 ? '' : 's'}${first ? `; first: ${first.line ? `line ${first.line}: ` : ''}${first.message}` : ''}); vox say and the hooks refuse it`,
          fix: 'run "vox config check" for every problem, and fix the file (docs/config.md)',
        },
      };
    }
    return {
      check: {
        name: 'config',
        level: 'fail',
        detail: `cannot read the config: ${(err as Error).message}`,
        fix: 'check the permissions of .vox/config.md',
      },
    };
  }
}
