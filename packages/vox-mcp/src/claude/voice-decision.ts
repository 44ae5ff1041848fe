/**
 * A permission prompt answered by voice (`approveByVoice: true`): announce
 * what the session asks ("api wants to run npm test. Allow or deny?"),
 * listen once, match the transcript against the strict grammar
 * (permission-answer.ts) and return the PermissionRequest hook's decision.
 *
 * Design notes:
 * - No decision is the safe result: silence, noise, an unknown phrase, a busy
 *   or absent voxd, a failed transcriber, or the time running out all leave
 *   Claude Code's own prompt as it was. Only a phrase of the grammar decides.
 * - Everything fits in VOICE_BUDGET_MS, under the hook's own timeout
 *   (VOICE_HOOK_TIMEOUT_SECONDS, set in the plugin's hooks.json): a decision
 *   that came after Claude Code gave up would be lost.
 * - One ask at a time across sessions (ask-lock under VOX_HOME): the
 *   announcement and its listen are one turn, so the answer the user gives
 *   after hearing "shop wants to run ..." reaches the shop request and no
 *   other. A second session waits its turn within its own budget, then gets
 *   no decision. A 409 from voxd (another listener) is retried the same way.
 * - Every decision is logged (VOX_HOME/logs/voice-decisions.jsonl, one JSON
 *   line: time, session, request id, tool, transcript, answer). A decision
 *   that cannot be logged is not returned.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homePaths, voxHome, type ListenResponse, type SpeakResponse, type WireError } from '@vox/protocol';
import { call } from '../daemon/client.js';
import { listen } from '../daemon/listening.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import { buildDelivery } from '../project/speech.js';
import { acquireAskLock } from './ask-lock.js';
import { spokenToolName, type HookPayload } from './hook.js';
import { VOICE_HOOK_TIMEOUT_SECONDS } from './hook-entries.js';
import { matchAnswer, type PermissionAnswer } from './permission-answer.js';

/** The whole voice turn (waiting for the turn, announcing, listening, transcribing), in ms: under the hook's timeout, with room to answer. */
export const VOICE_BUDGET_MS = VOICE_HOOK_TIMEOUT_SECONDS * 1000 - 5000;
/** The listen of an answer: a few words, ended by a short silence. */
export const ANSWER_LISTEN = Object.freeze({ silenceMs: 700, startTimeoutMs: 4000, maxSeconds: 6 });
/** Longest command or path spoken in an announcement, in characters. */
const MAX_SPOKEN_ARG = 120;
/** The decision log is rotated past this size (one older file is kept). */
const LOG_MAX_BYTES = 1024 * 1024;

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

export interface VoiceDecision {
  /** The hook's output; undefined: no decision, the prompt stays. */
  output?: PermissionOutput;
  answer?: PermissionAnswer;
  transcript: string;
  /** Why there is no decision, or what decided it. */
  reason: string;
}

export interface PermissionOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow'; updatedPermissions?: unknown[] } | { behavior: 'deny'; message: string };
  };
}

const clip = (s: string) => (s.length > MAX_SPOKEN_ARG ? `${s.slice(0, MAX_SPOKEN_ARG - 1).replace(/\s+\S*$/, '')}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** What the ask says: the tool and what it would do. */
export function askText(ask: Pick<PermissionAsk, 'projectName' | 'tool' | 'toolInput' | 'suggestions'>): string {
  const input = ask.toolInput ?? {};
  const arg = (k: string) => (typeof input[k] === 'string' ? clip(oneLine(input[k] as string)) : '');
  const p = ask.projectName;
  let what: string;
  if (ask.tool === 'Bash' && arg('command')) what = `${p} wants to run ${arg('command')}`;
  else if (['Edit', 'Write', 'MultiEdit', 'NotebookEdit'].includes(ask.tool) && (arg('file_path') || arg('notebook_path'))) what = `${p} wants to edit ${arg('file_path') || arg('notebook_path')}`;
  else if (ask.tool === 'WebFetch' && arg('url')) what = `${p} wants to fetch ${arg('url')}`;
  else what = `${p} wants to use ${spokenToolName(ask.tool)}`;
  return `${what}. ${offersAlways(ask) ? 'Allow, always, or deny?' : 'Allow or deny?'}`;
}

function offersAlways(ask: Pick<PermissionAsk, 'suggestions'>): boolean {
  return Array.isArray(ask.suggestions) && ask.suggestions.length > 0;
}

/** The hook output for an answer, in the shape Claude Code 2.1.332 validates. */
export function decisionOutput(answer: PermissionAnswer, ask: Pick<PermissionAsk, 'suggestions'>, transcript: string): PermissionOutput {
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
export function voiceAskOf(event: string, payload: HookPayload, config: ResolvedConfig, session: string): PermissionAsk | undefined {
  if (event !== 'PermissionRequest' || config.values.approveByVoice !== true || config.values.notify === 'off') return undefined;
  const tool = typeof payload.tool_name === 'string' ? payload.tool_name.trim() : '';
  if (!tool) return undefined;
  const id = typeof payload.tool_use_id === 'string' && payload.tool_use_id.trim() ? payload.tool_use_id.trim().slice(0, 100) : `vox-${randomUUID()}`;
  const toolInput = readObject(payload.tool_input);
  const suggestions = readList(payload.permission_suggestions);
  return { session, projectName: config.projectName, tool, requestId: id, ...(toolInput ? { toolInput } : {}), ...(suggestions ? { suggestions } : {}) };
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

/** Appends one decision to VOX_HOME/logs/voice-decisions.jsonl (throws when it cannot). */
export function logDecision(env: NodeJS.ProcessEnv, entry: Record<string, unknown>): string {
  const dir = homePaths(voxHome(env)).logs;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'voice-decisions.jsonl');
  try {
    if (statSync(file).size > LOG_MAX_BYTES) renameSync(file, `${file}.1`);
  } catch {
    // No log yet.
  }
  appendFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`, { mode: 0o600 });
  return file;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Ask by voice and return the decision, or none. Never throws. Every outcome
 * is logged; a decision whose log line cannot be written is dropped.
 */
export async function decideByVoice(env: NodeJS.ProcessEnv, config: ResolvedConfig, ask: PermissionAsk, options: { budgetMs?: number; signal?: AbortSignal } = {}): Promise<VoiceDecision> {
  const budget = AbortSignal.timeout(options.budgetMs ?? VOICE_BUDGET_MS);
  const d = await askByVoice(env, config, ask, options.signal ? AbortSignal.any([budget, options.signal]) : budget, options.budgetMs ?? VOICE_BUDGET_MS);
  const entry = { session: ask.session, requestId: ask.requestId, tool: ask.tool, transcript: d.transcript.slice(0, 200), answer: d.answer ?? null, reason: d.reason };
  try {
    logDecision(env, { ...entry, behavior: d.output?.hookSpecificOutput.decision.behavior ?? null });
  } catch (err) {
    return { transcript: d.transcript, reason: `no decision: the decision log cannot be written (${(err as Error).message})` };
  }
  return d;
}

async function askByVoice(env: NodeJS.ProcessEnv, config: ResolvedConfig, ask: PermissionAsk, signal: AbortSignal, budgetMs: number): Promise<VoiceDecision> {
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  const none = (reason: string, transcript = ''): VoiceDecision => ({ transcript, reason });
  const lock = await acquireAskLock(env, ask.requestId, deadline);
  if (!lock) return none('another session was being asked by voice until the time ran out');
  try {
    const delivery = buildDelivery(askText(ask), config, ask.session, { priority: 'important', chime: 'prompt', once: 1 });
    const body = delivery.route === '/v1/speak' ? { ...delivery.body, wait: true } : delivery.body;
    const spoken = await call<SpeakResponse | WireError>(env, 'POST', delivery.route, body, left(), { startTimeoutMs: Math.min(5000, left()), deadlineMs: left(), signal });
    if (spoken.status >= 400) return none(`voxd refused the announcement: HTTP ${spoken.status}`);
    for (;;) {
      // Queued behind another listener at most as long as the turn has left (voxd's FIFO, listen/floor.ts).
      const reply = await listen(env, { session: ask.session, ...ANSWER_LISTEN, waitMs: Math.min(300_000, left()) }, signal);
      if (reply.status === 409 && !signal.aborted) {
        await sleep(100, signal);
        continue;
      }
      if (reply.status !== 200) return none(`the listen failed: HTTP ${reply.status}`);
      const heard = reply.body as ListenResponse;
      const transcript = heard.text ?? '';
      if (signal.aborted) return none('the time ran out', transcript);
      const answer = matchAnswer(transcript, offersAlways(ask));
      if (!answer) return none(transcript ? 'not an answer of the grammar (allow, deny, always)' : `nothing heard (${heard.endedBy})`, transcript);
      return { output: decisionOutput(answer, ask, transcript), answer, transcript, reason: `answered by voice: ${answer}` };
    }
  } catch (err) {
    return none(`no decision: ${(err as Error).message}`);
  } finally {
    lock.release();
  }
}
