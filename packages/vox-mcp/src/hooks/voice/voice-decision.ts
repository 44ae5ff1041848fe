/**
 * A permission prompt answered by voice (`approveByVoice: true`): announce
 * what the session asks ("api wants to run npm test. Allow or deny?"), and
 * match the transcript against the strict grammar (permission-answer.ts) for
 * the PermissionRequest hook's decision. The turn itself (the lock, the
 * budget, the listen, the log) is voice-turn.ts's.
 */
import type { ResolvedConfig } from '../../project/config-schema.js';
import type { HookPayload } from '../event.js';
import { spokenToolName } from '../wording.js';
import { matchAnswer, type PermissionAnswer } from './permission-answer.js';
import { alwaysRules } from './always-rules.js';
import { spokenCommand } from './spoken-command.js';
import { agentIdsOf, askByVoice, leaveToScreen, type AgentIds, type VoiceOutcome } from './voice-turn.js';

export { ANSWER_LISTEN, VOICE_BUDGET_MS } from './voice-turn.js';

export interface PermissionAsk {
  /** The session label, e.g. `api#5e55a0`. */
  session: string;
  projectName: string;
  tool: string;
  toolInput?: Record<string, unknown>;
  /** The prompt's `permission_suggestions`: what "always" keeps. */
  suggestions?: unknown[];
  /** Claude Code's tool_use_id when it sends one (or the channel relay's request id), else an id made here; logged with the decision. */
  requestId: string;
  /** The payload's own session_id and tool_use_id, logged as they came. */
  ids?: AgentIds;
}

export type VoiceDecision = VoiceOutcome<PermissionAnswer, PermissionOutput>;

export interface PermissionOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow'; updatedPermissions?: unknown[] } | { behavior: 'deny'; message: string };
  };
}

export const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The tools whose effect one field names, and the fields that do not change
 * what the permission grants (an edit's new text, a fetch's prompt, the
 * model's own description): any other field leaves the prompt to the screen.
 */
const SAID_INPUT: Record<string, { verb: string; field: string; ignore: string[] }> = {
  Bash: { verb: 'run', field: 'command', ignore: ['description', 'timeout', 'run_in_background'] },
  Edit: { verb: 'edit', field: 'file_path', ignore: ['old_string', 'new_string', 'replace_all'] },
  MultiEdit: { verb: 'edit', field: 'file_path', ignore: ['edits'] },
  Write: { verb: 'write', field: 'file_path', ignore: ['content'] },
  NotebookEdit: { verb: 'edit', field: 'notebook_path', ignore: ['new_source', 'cell_id', 'cell_type', 'edit_mode'] },
  Read: { verb: 'read', field: 'file_path', ignore: ['offset', 'limit'] },
  WebFetch: { verb: 'fetch', field: 'url', ignore: ['prompt'] },
};

/**
 * The question, said so that what is heard is what runs (spoken-command.ts):
 * the command, path or URL whole, character by character, its secrets as
 * their kind. Or, when it cannot be said faithfully, why not and what is
 * said instead: the prompt is then left to the screen.
 */
export function askText(
  ask: Pick<PermissionAsk, 'projectName' | 'tool' | 'toolInput' | 'suggestions'>,
): { ok: true; text: string } | { ok: false; text: string; why: string } {
  const input = ask.toolInput ?? {};
  const p = ask.projectName;
  const tool = spokenToolName(ask.tool);
  const refuse = (why: string) => ({
    ok: false as const,
    why,
    text: `${p} asks to use ${tool}, which vox cannot say faithfully (${why}). Answer it on screen.`,
  });
  const said = SAID_INPUT[ask.tool];
  let what: string;
  if (said) {
    if (typeof input[said.field] !== 'string') return refuse(`its input has no ${said.field}`);
    const others = Object.keys(input).filter((k) => k !== said.field && !said.ignore.includes(k));
    if (others.length) return refuse(`it has more input than vox says (${others.join(', ').slice(0, 60)})`);
    const s = spokenCommand(input[said.field] as string);
    if (!s.ok) return refuse(s.why);
    what = `${p} wants to ${said.verb} ${s.text}`;
  } else if (Object.keys(input).length) return refuse('its input is not something vox can say');
  else what = `${p} wants to use ${tool}`;
  const always = alwaysRules(ask.suggestions);
  return { ok: true, text: `${what}. ${always ? `Allow, ${always.said}, or deny?` : 'Allow or deny?'}` };
}

function offersAlways(ask: Pick<PermissionAsk, 'suggestions'>): boolean {
  return alwaysRules(ask.suggestions) !== undefined;
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
        ? { behavior: 'allow', updatedPermissions: alwaysRules(ask.suggestions)?.grant ?? [] }
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
  const given = [payload.tool_use_id, payload.permission_request_id].find((v) => typeof v === 'string' && v.trim());
  const id = typeof given === 'string' ? given.trim().slice(0, 100) : `vox-${crypto.randomUUID()}`;
  const ids = agentIdsOf(payload);
  const toolInput = readObject(payload.tool_input);
  const suggestions = readList(payload.permission_suggestions);
  return {
    session,
    projectName: config.projectName,
    tool,
    requestId: id,
    ...(Object.keys(ids).length ? { ids } : {}),
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
  const question = askText(ask);
  if (!question.ok) return notAsked(env, config, ask, question);
  return askByVoice<PermissionAnswer, PermissionOutput>(
    env,
    config,
    {
      session: ask.session,
      requestId: ask.requestId,
      ...(ask.ids ? { ids: ask.ids } : {}),
      text: question.text,
      verbatim: true,
      match: (transcript) => matchAnswer(transcript, always),
      output: (answer, transcript) => decisionOutput(answer, ask, transcript),
      grammar: always ? 'allow, always, deny' : 'allow, deny',
      logged: (output) => ({ tool: ask.tool, behavior: output?.hookSpecificOutput.decision.behavior ?? null }),
    },
    options,
  );
}

/** The prompt left to the screen (askText said why): announced as such, logged, no decision. */
function notAsked(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  ask: PermissionAsk,
  question: { text: string; why: string },
): Promise<VoiceDecision> {
  return leaveToScreen<PermissionAnswer, PermissionOutput>(
    env,
    config,
    {
      session: ask.session,
      requestId: ask.requestId,
      ...(ask.ids ? { ids: ask.ids } : {}),
      text: question.text,
      logged: () => ({ tool: ask.tool, behavior: null }),
    },
    question.why,
  );
}
