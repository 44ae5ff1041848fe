/**
 * One hook event handled, the same for every entry: `vox hook` (the command
 * hooks of every agent, cli/commands/hook.ts), the `hook` tool of `vox mcp`
 * (Claude Code's mcp_tool hooks, mcp/tools/hook.ts) and Claude Code's
 * channel permission relay (mcp/permission-relay.ts). The entry reads its
 * input, has an agent's adapter make it vox's event, resolves the project's
 * config and the session's label, and passes them here with how it reaches
 * voxd; what comes back is its to write (a hook output, a result, a log).
 *
 * The steps: a project with `approveByVoice: true` asks a PermissionRequest
 * or an Elicitation of one choice by voice, where the entry can hand the
 * answer back (voice/voice-answer.ts, loaded only then); else the policy
 * (policy.ts) decides what the event sounds like, knowing whether the
 * session's permission ask was announced already (permission-asks.ts, shared
 * by every process), and the action is sent to voxd. An announced or asked
 * PermissionRequest is remembered for the Notification that follows.
 */
import type { ResolvedConfig } from '../project/config-schema.js';
import type { Delivery } from '../project/speech.js';
import type { HookPayload } from './event.js';
import type { PermissionAsks } from './permission-asks.js';
import { decideHook, focusReason, hookDelivery, unattended, VOICE_EVENTS, type HookAction } from './policy.js';

export interface HookCall {
  /** vox's event (event.ts), as the agent's adapter made it. */
  event: string;
  payload: HookPayload;
  config: ResolvedConfig;
  /** The session's label, e.g. `api#5e55a0`. */
  session: string;
  env: NodeJS.ProcessEnv;
  /** Where the asks announced are remembered. */
  asks: PermissionAsks;
  /** The entry can hand a voice answer back to the agent (its hook output). */
  voice: boolean;
  /** Decide only: no voice turn, nothing sent, nothing remembered. */
  dryRun?: boolean;
  signal?: AbortSignal;
  /** The reply was narrated while it was written: Stop does not read it again. */
  narrated?: boolean;
  /** The entry's own request for an action the policy would send (the channel relay says what the tool would do). */
  deliver?: (action: HookAction) => Delivery | undefined;
  /** Sends one request to voxd, with the entry's timeouts: undefined when taken, else why it was refused. */
  send(route: string, body: unknown): Promise<string | undefined>;
}

export type HookOutcome =
  /** Asked by voice: the hook's output (a decision), or none and why (the prompt stays). */
  | { kind: 'voice'; output?: object; reason: string }
  /** Decided; `delivery` is what was (or, dry, would be) sent, none for silence; `refused` says why voxd refused it. */
  | { kind: 'action'; action: HookAction; delivery?: Delivery; refused?: string };

/** Handles one hook event. Throws only what the entry's `send` throws. */
export async function handle(call: HookCall): Promise<HookOutcome> {
  const { event, payload, config, session, env, asks } = call;
  const now = Date.now();
  // The person is in this session now (voxd's attention); whatever voxd answers, the event goes on.
  const focus = focusReason(event, payload);
  if (focus && !call.dryRun) await call.send('/v1/focus', { session, reason: focus }).catch(() => undefined);
  if (call.voice && !call.dryRun && VOICE_EVENTS.has(event) && config.values.approveByVoice) {
    // Loaded only where a project answers by voice: every other hook event pays nothing for it.
    const { voiceAnswerOf } = await import('./voice/voice-answer.js');
    const ask = await voiceAnswerOf(event, payload, config, session);
    if (ask) {
      if (event === 'PermissionRequest') asks.requested(session, now);
      const decided = await ask(env, call.signal ? { signal: call.signal } : {});
      return { kind: 'voice', ...decided };
    }
  }
  const action = decideHook(event, payload, {
    notify: config.values.notify,
    projectName: config.projectName,
    unattended: unattended(env),
    unattendedPrompts: config.values.unattendedPrompts,
    // Only a Notification asks (a file read): every other event skips it.
    askAnnounced: event === 'Notification' && asks.announced(session, now),
    narrate: config.values.narrate,
    narrated: event === 'Stop' && call.narrated === true,
  });
  const policy = hookDelivery(action, config, session);
  const delivery = policy && call.deliver ? call.deliver(action) : policy;
  if (!delivery || call.dryRun) return { kind: 'action', action, ...(delivery ? { delivery } : {}) };
  const refused = await call.send(delivery.route, delivery.body);
  if (refused === undefined && event === 'PermissionRequest') asks.requested(session, now);
  return { kind: 'action', action, delivery, ...(refused !== undefined ? { refused } : {}) };
}
