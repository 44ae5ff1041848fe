/**
 * Where the pinned Claude Code is, for the tests and benches that run it. It is
 * not a dependency of vox: `scripts/ci/claude-code.sh` fetches the version in
 * `scripts/ci/claude-code-version` into the CI cache, and `VOX_CLAUDE_CODE`
 * may name another binary. Elsewhere those tests skip with this reason; under
 * CI=true its absence is an error, since CI fetches it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './daemon.js';
// @ts-expect-error plain ESM script, no types
import { claudeCodeBinary } from '../../scripts/ci/claude-code-bin.mjs';

export const CLAUDE_CODE_VERSION = readFileSync(join(ROOT, 'scripts/ci/claude-code-version'), 'utf8').trim();

function find(): string | undefined {
  if (process.env.VOX_CLAUDE_CODE) return process.env.VOX_CLAUDE_CODE;
  const cache = process.env.VOX_CI_CACHE ?? '/var/cache/vox-ci';
  return (claudeCodeBinary as (prefix: string) => string | undefined)(join(cache, 'claude-code', CLAUDE_CODE_VERSION));
}

/** The binary, or undefined; `skip` is then the reason to give. */
export const CLAUDE: string | undefined = find();
export const claudeSkip: string | false = CLAUDE
  ? false
  : `Claude Code ${CLAUDE_CODE_VERSION} is not installed here: scripts/ci/claude-code.sh fetches it (CI does), or set VOX_CLAUDE_CODE`;
if (!CLAUDE && process.env.CI === 'true') {
  throw new Error(`CI: Claude Code ${CLAUDE_CODE_VERSION} is missing; .ci/run fetches it with scripts/ci/claude-code.sh`);
}
