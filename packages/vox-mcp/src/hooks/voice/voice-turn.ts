/**
 * One question answered by voice, for a hook that may decide (a permission
 * prompt: voice-decision.ts; an elicitation's choice: elicitation-choice.ts):
 * take the turn, say the question, listen once, match the transcript against
 * the question's strict grammar and return the hook's output, or none.
 *
 * Design notes:
 * - No decision is the safe result: silence, noise, an unknown phrase, a busy
 *   or absent voxd, a failed transcriber, or the time running out all leave
 *   Claude Code's own prompt as it was. Only a phrase of the grammar decides.
 * - Everything fits in VOICE_BUDGET_MS, under the hook's own timeout
 *   (VOICE_HOOK_TIMEOUT_SECONDS, set in the plugin's hooks.json): a decision
 *   that came after Claude Code gave up would be lost.
 * - The question and its listen are one operation of voxd (POST /v1/listen
 *   with `say`): voxd grants the microphone first come, first served across
 *   every session and every VOX_HOME it serves, speaks the question under
 *   that grant and records right after, with nothing played in between. So
 *   the answer the user gives after hearing "shop wants to run ..." reaches
 *   the shop request and no other. A second question waits its turn within
 *   its own budget, then gets no decision.
 * - A question that was not spoken (muted project, deduplicated, failed,
 *   stopped) decides nothing: nothing is recorded for it.
 * - Every outcome is logged (VOX_HOME/logs/voice-decisions.jsonl, one JSON
 *   line: time, session, request id, the agent's own session id and
 *   tool_use_id where its payload has them, transcript, answer, what it
 *   decided; decision-log.ts, docs/talk-back.md). A decision that cannot be logged is not returned.
 */
import type { ListenResponse } from '@vox/protocol';
import { call } from '../../client/call.js';
import { listen } from '../../client/listening.js';
import type { ResolvedConfig } from '../../project/config-schema.js';
import { buildDelivery } from '../../project/speech.js';
import { VOICE_HOOK_TIMEOUT_SECONDS } from '../timeouts.js';
import { logDecision } from './decision-log.js';

/** The whole voice turn (waiting for the turn, announcing, listening, transcribing), in ms: under the hook's timeout, with room to answer. */
export const VOICE_BUDGET_MS = VOICE_HOOK_TIMEOUT_SECONDS * 1000 - 5000;
/** The listen of an answer: a few words, ended by a short silence. */
export const ANSWER_LISTEN = Object.freeze({ silenceMs: 700, startTimeoutMs: 4000, maxSeconds: 6 });

/** The agent's own ids of what is asked, where its payload has them: a decision matches its tool call by them. */
export interface AgentIds {
  /** The payload's `session_id` (Claude Code's session, not vox's label). */
  sessionId?: string;
  /** The payload's `tool_use_id`: the tool call the permission is for. */
  toolUseId?: string;
}

const ID_MAX_CHARS = 200;

/** The ids a hook payload carries (strings, bounded); none made up. */
export function agentIdsOf(payload: { session_id?: unknown; tool_use_id?: unknown }): AgentIds {
  const id = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, ID_MAX_CHARS) : undefined);
  const sessionId = id(payload.session_id);
  const toolUseId = id(payload.tool_use_id);
  return { ...(sessionId ? { sessionId } : {}), ...(toolUseId ? { toolUseId } : {}) };
}

/** A question a hook asks by voice: what is said, and how an answer becomes the hook's output. */
export interface VoiceQuestion<A extends string, O> {
  /** The session label, e.g. `api#5e55a0`. */
  session: string;
  /** Claude Code's id of the request when it sends one, else one made here; logged with the outcome. */
  requestId: string;
  /** The agent's ids, logged as they came. */
  ids?: AgentIds;
  /** What is spoken before listening. */
  text: string;
  /** Spoken exactly as given (no prose cleanup in voxd), and only decided on when voxd says it spoke that text. */
  verbatim?: boolean;
  /** The answer a transcript gives (a word the log can show), or undefined: never a guess. */
  match(transcript: string): A | undefined;
  /** The hook's output for an answer. */
  output(answer: A, transcript: string): O;
  /** The phrases the grammar takes, for the reason a transcript decided nothing. */
  grammar: string;
  /** Fields of the log line: what was asked, and what the output decided (null: nothing). */
  logged(output: O | undefined): Record<string, unknown>;
}

export interface VoiceOutcome<A extends string, O> {
  /** The hook's output; undefined: no decision, the prompt stays. */
  output?: O;
  answer?: A;
  transcript: string;
  /** Why there is no decision, or what decided it. */
  reason: string;
}

/**
 * Ask by voice and return the outcome. Never throws. Every outcome is
 * logged; a decision whose log line cannot be written is dropped.
 */
export async function askByVoice<A extends string, O>(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  q: VoiceQuestion<A, O>,
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<VoiceOutcome<A, O>> {
  const budgetMs = options.budgetMs ?? VOICE_BUDGET_MS;
  const budget = AbortSignal.timeout(budgetMs);
  const d = await turn(env, config, q, options.signal ? AbortSignal.any([budget, options.signal]) : budget, budgetMs);
  try {
    logDecision(env, {
      session: q.session,
      requestId: q.requestId,
      ...q.ids,
      transcript: d.transcript.slice(0, 200),
      answer: d.answer ?? null,
      reason: d.reason,
      ...q.logged(d.output),
    });
  } catch (err) {
    return {
      transcript: d.transcript,
      reason: `no decision: the decision log cannot be written (${(err as Error).message})`,
    };
  }
  return d;
}

async function turn<A extends string, O>(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  q: VoiceQuestion<A, O>,
  signal: AbortSignal,
  budgetMs: number,
): Promise<VoiceOutcome<A, O>> {
  const none = (reason: string, transcript = ''): VoiceOutcome<A, O> => ({ transcript, reason });
  const delivery = buildDelivery(q.text, config, q.session, { priority: 'important', chime: 'prompt', once: 1 });
  // A muted project plays a chime for speech: a question nobody heard decides nothing.
  if (delivery.route !== '/v1/speak') return none('this project is muted (speak: false): nothing was asked by voice');
  const { wait: _, ...body } = delivery.body;
  const say = q.verbatim ? { ...body, verbatim: true } : body;
  try {
    // One operation of voxd: queued for the microphone behind other questions (its floor, FIFO),
    // then the question and the listen under one hold of the player, so nothing plays between them.
    const reply = await listen(
      env,
      { session: q.session, ...ANSWER_LISTEN, waitMs: Math.min(300_000, budgetMs), say },
      signal,
    );
    if (reply.status !== 200) return none(`the listen failed: HTTP ${reply.status}`);
    const heard = reply.body as ListenResponse;
    // What voxd spoke must be the question as sent: an older voxd that cleans it up, or one that drops `say`, decides nothing.
    if (q.verbatim && heard.said?.text !== say.text)
      return none('voxd did not say the question exactly as given, so nothing was decided');
    if (heard.said && heard.said.status !== 'played')
      return none(
        `the question was not spoken (${heard.said.status}${heard.said.reason ? `: ${heard.said.reason}` : ''})`,
      );
    const transcript = heard.text ?? '';
    if (signal.aborted) return none('the time ran out', transcript);
    const answer = q.match(transcript);
    if (answer === undefined)
      return none(
        transcript ? `not an answer of the grammar (${q.grammar})` : `nothing heard (${heard.endedBy})`,
        transcript,
      );
    return { output: q.output(answer, transcript), answer, transcript, reason: `answered by voice: ${answer}` };
  } catch (err) {
    return none(`no decision: ${(err as Error).message}`);
  }
}

/**
 * A question vox cannot say faithfully: say that it is left to the screen,
 * log why, and decide nothing. Never throws.
 */
export async function leaveToScreen<A extends string, O>(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  q: Pick<VoiceQuestion<A, O>, 'session' | 'requestId' | 'ids' | 'text' | 'logged'>,
  why: string,
): Promise<VoiceOutcome<A, O>> {
  const reason = `not asked by voice: ${why}`;
  const delivery = buildDelivery(q.text, config, q.session, { priority: 'important', chime: 'prompt', once: 1 });
  await call(env, 'POST', delivery.route, delivery.body, 5000, { startTimeoutMs: 2000 }).catch(() => undefined);
  try {
    logDecision(env, {
      session: q.session,
      requestId: q.requestId,
      ...q.ids,
      transcript: '',
      answer: null,
      reason,
      ...q.logged(undefined),
    });
  } catch {
    // Nothing was decided: there is no decision to withhold.
  }
  return { transcript: '', reason };
}
