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
 * - One question at a time across sessions (ask-lock under VOX_HOME): the
 *   announcement and its listen are one turn, so the answer the user gives
 *   after hearing "shop wants to run ..." reaches the shop request and no
 *   other. A second session waits its turn within its own budget, then gets
 *   no decision. A 409 from voxd (another listener) is retried the same way.
 * - Every outcome is logged (VOX_HOME/logs/voice-decisions.jsonl, one JSON
 *   line: time, session, request id, transcript, answer, what it decided). A
 *   decision that cannot be logged is not returned.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homePaths, voxHome, type ListenResponse, type SpeakResponse, type WireError } from '@vox/protocol';
import { call } from '../client/call.js';
import { listen } from '../client/listening.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import { buildDelivery } from '../project/speech.js';
import { acquireAskLock } from './ask-lock.js';
import { VOICE_HOOK_TIMEOUT_SECONDS } from './hook-entries.js';

/** The whole voice turn (waiting for the turn, announcing, listening, transcribing), in ms: under the hook's timeout, with room to answer. */
export const VOICE_BUDGET_MS = VOICE_HOOK_TIMEOUT_SECONDS * 1000 - 5000;
/** The listen of an answer: a few words, ended by a short silence. */
export const ANSWER_LISTEN = Object.freeze({ silenceMs: 700, startTimeoutMs: 4000, maxSeconds: 6 });
/** The decision log is rotated past this size (one older file is kept). */
const LOG_MAX_BYTES = 1024 * 1024;

/** A question a hook asks by voice: what is said, and how an answer becomes the hook's output. */
export interface VoiceQuestion<A extends string, O> {
  /** The session label, e.g. `api#5e55a0`. */
  session: string;
  /** Claude Code's id of the request when it sends one, else one made here; logged with the outcome. */
  requestId: string;
  /** What is spoken before listening. */
  text: string;
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

/** Appends one outcome to VOX_HOME/logs/voice-decisions.jsonl (throws when it cannot). */
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
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  const none = (reason: string, transcript = ''): VoiceOutcome<A, O> => ({ transcript, reason });
  const lock = await acquireAskLock(env, q.requestId, deadline);
  if (!lock) return none('another session was being asked by voice until the time ran out');
  try {
    const delivery = buildDelivery(q.text, config, q.session, { priority: 'important', chime: 'prompt', once: 1 });
    const body = delivery.route === '/v1/speak' ? { ...delivery.body, wait: true } : delivery.body;
    const spoken = await call<SpeakResponse | WireError>(env, 'POST', delivery.route, body, left(), {
      startTimeoutMs: Math.min(5000, left()),
      deadlineMs: left(),
      signal,
    });
    if (spoken.status >= 400) return none(`voxd refused the announcement: HTTP ${spoken.status}`);
    for (;;) {
      // Queued behind another listener at most as long as the turn has left (voxd's FIFO, listen/floor.ts).
      const reply = await listen(
        env,
        { session: q.session, ...ANSWER_LISTEN, waitMs: Math.min(300_000, left()) },
        signal,
      );
      if (reply.status === 409 && !signal.aborted) {
        await sleep(100, signal);
        continue;
      }
      if (reply.status !== 200) return none(`the listen failed: HTTP ${reply.status}`);
      const heard = reply.body as ListenResponse;
      const transcript = heard.text ?? '';
      if (signal.aborted) return none('the time ran out', transcript);
      const answer = q.match(transcript);
      if (answer === undefined)
        return none(
          transcript ? `not an answer of the grammar (${q.grammar})` : `nothing heard (${heard.endedBy})`,
          transcript,
        );
      return { output: q.output(answer, transcript), answer, transcript, reason: `answered by voice: ${answer}` };
    }
  } catch (err) {
    return none(`no decision: ${(err as Error).message}`);
  } finally {
    lock.release();
  }
}
