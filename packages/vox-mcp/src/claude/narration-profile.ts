/**
 * How a session narrates, told to voxd (POST /v1/narration/session): the vox
 * mod narrates Claude Code's stream from its own worker, where vox's config
 * parser cannot run, so the session's `vox mcp`, the one reader of
 * `.vox/config.md`, declares what the config says, and voxd speaks the mod's
 * batches by it (docs/claude-code.md, "Narration from the stream").
 *
 * Design notes:
 * - Declared at each prompt, whether the project narrates or not (a voxd
 *   started since the last one knows nothing; nothing declared is not
 *   narrating), and at any other hook call that finds the config changed
 *   since the last declaration (an edit, or the model's `configure` tool):
 *   the mod follows the config from the next hook on, as vox mcp's own path does.
 * - Small and free of the narration module: a project that does not narrate
 *   declares so without loading it.
 */
import type { NarrationSessionRequest } from '@vox/protocol';
import type { ResolvedConfig } from '../project/config-schema.js';
import { announceLabel } from '../project/config.js';

/** Why the project does not read replies as they are written, in its config's words; undefined when it does. */
export function notNarrating(config: ResolvedConfig): string | undefined {
  const v = config.values;
  if (v.narrate !== 'stream') return `narrate: ${v.narrate}`;
  if (v.notify === 'off' || v.notify === 'quiet') return `notify: ${v.notify}`;
  if (v.speak === false) return 'speak: false';
  return undefined;
}

/** The declaration of how `session` narrates, from its project's config. */
export function narrationProfile(config: ResolvedConfig, session: string): NarrationSessionRequest {
  const reason = notNarrating(config);
  if (reason) return { session, narrates: false, reason };
  const v = config.values;
  const body: NarrationSessionRequest = { session, narrates: true, rate: v.rate, volume: v.volume };
  if (v.voice !== undefined) body.voice = v.voice;
  if (v.engine !== 'auto') body.engine = v.engine;
  if (v.model !== undefined) body.model = v.model;
  const label = announceLabel(config);
  if (label) body.announce = label;
  if (config.pronunciations.length) body.pronunciations = config.pronunciations.map(({ word, say }) => ({ word, say }));
  return body;
}

/** What this process last declared, by label (a session has a few: `/clear` gives it a new one). */
const declared = new Map<string, string>();
const MAX_DECLARED = 32;

/**
 * Whether `profile` is to be sent: always at a prompt (`force`), else when it
 * differs from what was last declared for its label. Notes it as declared.
 */
export function toDeclare(profile: NarrationSessionRequest, force: boolean): boolean {
  const key = JSON.stringify(profile);
  if (!force && declared.get(profile.session) === key) return false;
  declared.delete(profile.session);
  declared.set(profile.session, key);
  if (declared.size > MAX_DECLARED) declared.delete(declared.keys().next().value!);
  return true;
}

/**
 * The config cannot be read (an invalid file): vox mcp narrates nothing until
 * it is fixed, so every label this process declared narrating is declared not
 * narrating (once), or the mod would go on by the last good config.
 */
export function invalidConfig(): NarrationSessionRequest[] {
  const out: NarrationSessionRequest[] = [];
  for (const [session, key] of [...declared])
    if ((JSON.parse(key) as NarrationSessionRequest).narrates) {
      const p: NarrationSessionRequest = { session, narrates: false, reason: 'the .vox/config.md is invalid' };
      if (toDeclare(p, false)) out.push(p);
    }
  return out;
}

/** Forget what was declared (tests). */
export function forgetDeclared(): void {
  declared.clear();
}
