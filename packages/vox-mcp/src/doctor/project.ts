/** The checks of this project: its `.vox/config.md` and Claude Code's hook settings. */
import { inspectHooks, settingsPath, type SettingsScope } from '../claude/hooks-settings.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import { ConfigError } from '../project/config-validation.js';
import { resolveConfig } from '../project/config.js';
import type { Check } from './check.js';

export async function configCheck(cwd: string): Promise<{ check: Check; config?: ResolvedConfig }> {
  try {
    const config = await resolveConfig(cwd);
    if (!config.file) return { check: { name: 'config', level: 'ok', detail: `none, defaults apply (no .vox/config.md at or above ${cwd})` }, config };
    const v = config.values;
    return {
      check: { name: 'config', level: 'ok', detail: `${config.file} is valid (notify ${v.notify}, speak ${v.speak}, engine ${v.engine}${v.voice ? `, voice ${v.voice}` : ''})` },
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
    return { check: { name: 'config', level: 'fail', detail: `cannot read the config: ${(err as Error).message}`, fix: 'check the permissions of .vox/config.md' } };
  }
}

export function hooksCheck(env: NodeJS.ProcessEnv, cwd: string): Check {
  const scopes: SettingsScope[] = ['user', 'project', 'local'];
  const states = scopes.map((scope) => ({ scope, ...inspectHooks(settingsPath(scope, { env, cwd })) }));
  const complete = states.filter((s) => !s.error && s.missing.length === 0);
  const partial = states.filter((s) => !s.error && s.installed.length > 0 && s.missing.length > 0);
  const broken = states.filter((s) => s.error);
  const describe = (s: (typeof states)[number]) =>
    s.error ? `${s.scope}: cannot read ${s.path}` : s.missing.length === 0 ? `${s.scope}: installed` : s.installed.length ? `${s.scope}: partly (missing ${s.missing.join(', ')})` : `${s.scope}: not installed`;
  const detail = states.map(describe).join('; ');
  if (broken.length) {
    return { name: 'hooks', level: 'warn', detail: `${detail} (${broken.map((s) => s.error).join('; ')})`, fix: `fix the JSON in ${broken.map((s) => s.path).join(' and ')}; Claude Code cannot read it either` };
  }
  if (complete.length) {
    if (partial.length) {
      return { name: 'hooks', level: 'ok', detail };
    }
    return { name: 'hooks', level: 'ok', detail: `${detail} (${complete.map((s) => s.path).join(', ')})` };
  }
  if (partial.length) {
    return { name: 'hooks', level: 'warn', detail, fix: `run "vox hooks install --${partial[0]!.scope}" to add the missing events` };
  }
  return {
    name: 'hooks',
    level: 'warn',
    detail: `${detail}; sessions speak only when Claude calls the tools (unless the vox plugin is installed)`,
    fix: 'run "vox hooks install" (every project) or "vox hooks install --project"; or install the plugin (docs/claude-code.md)',
  };
}

