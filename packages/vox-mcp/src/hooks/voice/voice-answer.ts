/**
 * The question a hook event asks by voice in a project with `approveByVoice:
 * true`: a permission prompt (voice-decision.ts) or an elicitation's one
 * choice (elicitation-choice.ts), the same for the hook tool of `vox mcp`
 * and for `vox hook` as a command. Each module loads only for its event.
 */
import type { ResolvedConfig } from '../../project/config-schema.js';
import type { HookPayload } from '../event.js';

/** Asks and answers with the hook's output, or none and why (the prompt stays). Never throws. */
export type VoiceAnswer = (
  env: NodeJS.ProcessEnv,
  options?: { budgetMs?: number; signal?: AbortSignal },
) => Promise<{ output?: object; reason: string }>;

/** The voice question of the event, or undefined when this event is not asked by voice here. */
export async function voiceAnswerOf(
  event: string,
  payload: HookPayload,
  config: ResolvedConfig,
  session: string,
): Promise<VoiceAnswer | undefined> {
  if (event === 'PermissionRequest') {
    const { decideByVoice, voiceAskOf } = await import('./voice-decision.js');
    const ask = voiceAskOf(event, payload, config, session);
    return ask && ((env, options) => decideByVoice(env, config, ask, options));
  }
  if (event === 'Elicitation') {
    const { choiceOf, chooseByVoice } = await import('./elicitation-choice.js');
    const choice = choiceOf(event, payload, config, session);
    return choice && ((env, options) => chooseByVoice(env, config, choice, options));
  }
  return undefined;
}
