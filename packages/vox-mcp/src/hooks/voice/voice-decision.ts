/**
 * A permission prompt answered by voice (`approveByVoice: true`): announce
 * what the session asks ("api wants to run npm test. Allow or deny?"), and
 * match the transcript against the strict grammar (permission-answer.ts) for
 * the PermissionRequest hook's decision. The turn itself (the lock, the
 * budget, the listen, the log) is voice-turn.ts's.
 */
import { randomUUID } from 'node:crypto';
import type { ResolvedConfig } from '../../project/config-schema.js';
import type { HookPayload } from '../event.js';
import { spokenToolName } from '../wording.js';
import { matchAnswer, type PermissionAnswer } from './permission-answer.js';
import { askByVoice, type VoiceOutcome } from './voice-turn.js';

export { ANSWER_LISTEN, VOICE_BUDGET_MS } from './voice-turn.js';

/** Longest command or path spoken in an announcement, in characters. */
const MAX_SPOKEN_ARG = 120;

export interface PermissionAsk {
  /** The session label, e.g. `api#5e55a0`. */
  session: string;
  projectName: string;
  tool: string;
  toolInput?: Record<string, unknown>;
  /** The prompt's `permission_suggestions`: what "always" keeps. */
  suggestions?: unknown[];
  /** Claude Code's tool_use_id when it sends one, else an id made here; logged with the decision. */
  requestId: string;
}

export type VoiceDecision = VoiceOutcome<PermissionAnswer, PermissionOutput>;

export interface PermissionOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow'; updatedPermissions?: unknown[] } | { behavior: 'deny'; message: string };
  };
}

export const clip = (s: string) =>
  s.length > MAX_SPOKEN_ARG ? `${s.slice(0, MAX_SPOKEN_ARG - 1).replace(/\s+\S*$/, '')}…` : s;
export const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** What the ask says: the tool and what it would do. */
export function askText(ask: Pick<PermissionAsk, 'projectName' | 'tool' | 'toolInput' | 'suggestions'>): string {
  const input = ask.toolInput ?? {};
  const arg = (k: string) => (typeof input[k] === 'string' ? clip(oneLine(input[k] as string)) : '');
  const p = ask.projectName;
  let what: string;
  if (ask.tool === 'Bash' && arg('command')) what = `${p} wants to run ${arg('command')}`;
  else if (
    ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'].includes(ask.tool) &&
    (arg('file_path') || arg('notebook_path'))
  )
    what = `${p} wants to edit ${arg('file_path') || arg('notebook_path')}`;
  else if (ask.tool === 'WebFetch' && arg('url')) what = `${p} wants to fetch ${arg('url')}`;
  else what = `${p} wants to use ${spokenToolName(ask.tool)}`;
  return `${what}. ${offersAlways(ask) ? 'Allow, always, or deny?' : 'Allow or deny?'}`;
}

function offersAlways(ask: Pick<PermissionAsk, 'suggestions'>): boolean {
  return Array.isArray(ask.suggestions) && ask.suggestions.length > 0;
}

/** The hook output for an answer, in the shape Claude Code 2.1.332 validates. */
export function decisionOutput(
  answer: PermissionAnswer,
  ask: Pick<PermissionAsk, 'suggestions'>,
  transcript: string,
): PermissionOutput {
  const decision: PermissionOutput['hookSpecificOutput']['decision'] =
    answer === 'deny'
      ? { behavior: 'deny', message: `Denied by voice ("${oneLine(transcript).slice(0, 80)}").` }
      : answer === 'always'
        ? { behavior: 'allow', updatedPermissions: ask.suggestions ?? [] }
        : { behavior: 'allow' };
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/**
 * The voice ask of a hook event, when the project answers it by voice:
 * PermissionRequest with `approveByVoice: true` in the project's own file
 * (the default, false, and `notify: off` both keep it off). Undefined
 * otherwise: the event takes its usual path.
 */
export function voiceAskOf(
  event: string,
  payload: HookPayload,
  config: ResolvedConfig,
  session: string,
): PermissionAsk | undefined {
  if (event !== 'PermissionRequest' || config.values.approveByVoice !== true || config.values.notify === 'off')
    return undefined;
  const tool = typeof payload.tool_name === 'string' ? payload.tool_name.trim() : '';
  if (!tool) return undefined;
  const id =
    typeof payload.tool_use_id === 'string' && payload.tool_use_id.trim()
      ? payload.tool_use_id.trim().slice(0, 100)
      : `vox-${randomUUID()}`;
  const toolInput = readObject(payload.tool_input);
  const suggestions = readList(payload.permission_suggestions);
  return {
    session,
    projectName: config.projectName,
    tool,
    requestId: id,
    ...(toolInput ? { toolInput } : {}),
    ...(suggestions ? { suggestions } : {}),
  };
}

/** `tool_input` as Claude Code sends it: an object (command hooks) or its JSON (an mcp_tool hook's substitution). */
export function readObject(v: unknown): Record<string, unknown> | undefined {
  if (typeof v === 'string' && v.trim().startsWith('{')) {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** `permission_suggestions`: a list, or its JSON. */
export function readList(v: unknown): unknown[] | undefined {
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return Array.isArray(v) ? v : undefined;
}

/**
 * Ask by voice and return the decision, or none. Never throws. Every outcome
 * is logged; a decision whose log line cannot be written is dropped.
 */
export function decideByVoice(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  ask: PermissionAsk,
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<VoiceDecision> {
  const always = offersAlways(ask);
  return askByVoice<PermissionAnswer, PermissionOutput>(
    env,
    config,
    {
      session: ask.session,
      requestId: ask.requestId,
      text: askText(ask),
      match: (transcript) => matchAnswer(transcript, always),
      output: (answer, transcript) => decisionOutput(answer, ask, transcript),
      grammar: always ? 'allow, always, deny' : 'allow, deny',
      logged: (output) => ({ tool: ask.tool, behavior: output?.hookSpecificOutput.decision.behavior ?? null }),
    },
    options,
  );
}
