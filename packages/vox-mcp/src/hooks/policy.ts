/**
 * What a hook event should sound like: pure logic from vox's event (event.ts,
 * Claude Code's names and fields, which every agent's adapter maps onto) and
 * the project's resolved settings to one action. No I/O here; handle.ts
 * resolves the config and sends the action (the words are wording.ts's).
 *
 * Design notes (docs/claude-code.md has the table):
 * - `notify` decides how much the hooks say. `off` silences every event,
 *   permission prompts included: it is the one switch that makes vox's hooks
 *   quiet in a project without uninstalling them (`speak: false` keeps them,
 *   as chimes). `normal` speaks what needs the user (PermissionRequest, the
 *   Notification types that block or wait, Stop and StopFailure).
 *   `continuous` adds SubagentStop, SessionStart, SessionEnd, PreCompact and
 *   the informative Notification types.
 * - A permission request is announced by `PermissionRequest`, the moment it is
 *   asked. The `permission_prompt` Notification that Claude Code 2.1.332
 *   sends ~6 s later for the same request names no tool, so no duplicate key
 *   can tie the two: handle.ts remembers the requests announced
 *   (permission-asks.ts, a small file under VOX_HOME, so command hooks that
 *   run one process per event share it) and says so in `askAnnounced`, and
 *   the Notification is then silent. A Notification whose words name the
 *   tool (older Claude Code) also gets the request's key. The hook never decides a
 *   permission (it prints nothing), so the dialog is the user's, unless the
 *   project sets `approveByVoice: true`: then the callers ask by voice
 *   instead (voice/voice-decision.ts), and that path applies under `claude -p`
 *   too, since the key says a person is listening.
 * - Where nobody can answer a prompt (`claude -p`, CLAUDE_CODE_ENTRYPOINT
 *   sdk-cli: Claude Code denies the tool within milliseconds), a permission
 *   or input prompt says nothing, unless the project sets
 *   `unattendedPrompts: true`.
 * - Notification types that echo what the user just did (`auth_success`,
 *   `elicitation_complete`, `elicitation_response`) are never spoken; an
 *   unknown (future) type gets the safe default, `notification` priority.
 * - Priorities follow what the event means to someone working in another
 *   window: a permission prompt blocks the session until answered, so it is
 *   `important` (it interrupts other speech, which resumes afterwards); a Stop
 *   summary is `text`, so a newer Stop of the same session replaces an older
 *   one still queued; everything else is `notification`, which voxd drops when
 *   other speech is busy rather than pile it up.
 * - Every spoken action has an expiry (`maxAgeMs`): a permission prompt that
 *   has not been spoken within 60 s has most likely been answered, a summary
 *   older than 2 minutes is history, and a notification is noise after 30 s.
 * - A Stop summary is cut here, not in voxd: the first two sentences of the
 *   last message, at most ~200 characters, so what is spoken is predictable.
 *   Code blocks, headings and tables are skipped; voxd cleans the rest
 *   (markdown, inline code, URLs).
 * - Muted projects (`speak: false`) hear the `chime` of a speak action instead
 *   (speech.ts's buildDelivery does the swap).
 */
import { NOTIFICATION_MAX_AGE_MS, type ChimeSignal, type Priority } from '@vox/protocol';
import type { NarrateMode, NotifyMode, ResolvedConfig } from '../project/config-schema.js';
import { buildDelivery, type Delivery } from '../project/speech.js';
import type { HookPayload } from './event.js';
import { summarize } from './summary.js';
import { failureText, noticeText, permissionText, permissionTool, spokenToolName } from './wording.js';

export type HookAction =
  | {
      kind: 'speak';
      text: string;
      priority: Priority;
      /** Played instead when the project is muted (`speak: false`). */
      chime?: ChimeSignal;
      /** Drop the speech if it has not started within this many ms. */
      maxAgeMs?: number;
      /** Duplicate key within the session (the caller prefixes the session); default: the text. */
      dedupKey?: string;
      /** Duplicate window in seconds, at least; default: the project's `dedup`. */
      once?: number;
      /** The session's idle prompt: said once per wait (voxd's idle-waits.ts), again after `once` at the soonest. */
      idlePrompt?: boolean;
      /** It needs the person: spoken from a background session under `attention: focus` (docs/attention.md). */
      needsPerson?: boolean;
    }
  | { kind: 'chime'; signal: ChimeSignal; priority: Priority }
  | { kind: 'none'; reason: string };

export interface HookContext {
  /** The project's `notify` setting. */
  notify: NotifyMode;
  /** Spoken name of the project, e.g. `api`. */
  projectName: string;
  /** Nobody can answer a prompt: a `claude -p` run (see `unattended()`). Default false. */
  unattended?: boolean;
  /** The project's `unattendedPrompts`: announce prompts even when unattended. Default false. */
  unattendedPrompts?: boolean;
  /** This session's PermissionRequest was announced a moment ago: its permission Notification is the same ask. */
  askAnnounced?: boolean;
  /** The project's `narrate`: `off` reads no reply. Default `summary`. */
  narrate?: NarrateMode;
  /** The reply was narrated while it was written (Claude Code's narration): Stop does not read it again. */
  narrated?: boolean;
}

/**
 * True when the session runs where nobody can answer a prompt: Claude Code
 * sets CLAUDE_CODE_ENTRYPOINT=sdk-cli for `claude -p` (and the hooks and MCP
 * servers it starts inherit it), and denies an unanswered permission at once.
 * The Agent SDK's sdk-ts and sdk-py are left out: their host may show the
 * prompt to a person (canUseTool).
 */
export function unattended(env: NodeJS.ProcessEnv): boolean {
  return env.CLAUDE_CODE_ENTRYPOINT === 'sdk-cli';
}

/** A permission prompt not spoken within this time has most likely been answered. */
export const PERMISSION_MAX_AGE_MS = 60_000;
/** A Stop summary not spoken within this time is stale. */
export const STOP_MAX_AGE_MS = 120_000;
/**
 * A permission request and its later `permission_prompt` Notification are one
 * event within this many seconds (Claude Code sends the Notification about
 * 6 s after the request, if it is still open).
 */
export const PERMISSION_DEDUP_SECONDS = 20;
/**
 * The idle prompt is said once per wait (Claude Code re-fires it about every
 * 60 s); while the session still waits, a reminder comes after this many
 * seconds at the soonest. Ten minutes: long enough that a wait is one
 * sentence, not ten; short enough that a session forgotten for a while asks
 * again (docs/claude-code.md).
 */
export const IDLE_REMINDER_SECONDS = 600;
/** Idle pings, session start, compaction: noise once old. */
export const NOTICE_MAX_AGE_MS = NOTIFICATION_MAX_AGE_MS;

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * The duplicate key of a permission request, the same for `PermissionRequest`
 * and the `Notification` `permission_prompt` that Claude Code sends for the
 * same request about six seconds later (the caller prefixes the session).
 */
export function permissionKey(tool: string | undefined): string {
  return `permission ${tool ?? ''}`.trim();
}

/** What a permission request sounds like, for either event. */
function permissionAction(project: string, tool: string | undefined, message: string): HookAction {
  const text = tool
    ? `${project} needs your permission to use ${spokenToolName(tool)}`
    : permissionText(project, message);
  return {
    kind: 'speak',
    text,
    priority: 'important',
    chime: 'prompt',
    maxAgeMs: PERMISSION_MAX_AGE_MS,
    dedupKey: permissionKey(tool),
    once: PERMISSION_DEDUP_SECONDS,
  };
}

/**
 * How each Notification type is heard. `need` types block the session or
 * need the user to act; `info` types are heard only in continuous mode;
 * `quiet` types echo something the user just did and are never spoken.
 * A type not listed here (a future one) gets the safe default: its message
 * at `notification` priority, which never interrupts and is dropped when
 * other speech is busy.
 */
export const NOTIFICATION_POLICY: Record<string, 'permission' | 'need' | 'idle' | 'info' | 'quiet'> = {
  permission_prompt: 'permission',
  worker_permission_prompt: 'permission',
  elicitation_dialog: 'need',
  elicitation_url_dialog: 'need',
  agent_needs_input: 'need',
  idle_prompt: 'idle',
  auth_storage_failure: 'info',
  agent_completed: 'info',
  push_notification: 'info',
  plugin_notification: 'info',
  computer_use_enter: 'info',
  computer_use_exit: 'info',
  quota_auto_resume_fired: 'info',
  quota_auto_resume_stale: 'info',
  quota_auto_resume_disabled: 'info',
  model_refusal_fallback: 'info',
  auth_success: 'quiet',
  elicitation_complete: 'quiet',
  elicitation_response: 'quiet',
};

/** A Notification without a type (older Claude Code): its kind from its words. */
function untypedKind(message: string): 'permission' | 'idle' | undefined {
  if (/\bneeds\s+your\s+permission\b/i.test(message)) return 'permission';
  if (/\bwaiting\s+for\s+your\s+input\b/i.test(message)) return 'idle';
  return undefined;
}

const NOBODY = {
  kind: 'none',
  reason: 'nobody can answer a prompt here (claude -p); unattendedPrompts: true announces it',
} as const;

function notification(payload: HookPayload, ctx: HookContext, continuous: boolean): HookAction {
  const project = ctx.projectName;
  const type = str(payload.notification_type);
  const message = str(payload.message);
  const kind = type ? NOTIFICATION_POLICY[type] : untypedKind(message);
  const quiet = ctx.unattended === true && ctx.unattendedPrompts !== true;
  switch (kind) {
    case 'permission':
      if (quiet) return NOBODY;
      if (ctx.askAnnounced)
        return { kind: 'none', reason: "the session's PermissionRequest announced this ask a moment ago" };
      return permissionAction(project, permissionTool(message), message);
    case 'need':
      if (quiet) return NOBODY;
      return {
        kind: 'speak',
        text: noticeText(project, message),
        priority: 'important',
        chime: 'prompt',
        maxAgeMs: PERMISSION_MAX_AGE_MS,
      };
    case 'idle':
      return {
        kind: 'speak',
        text: `${project} is waiting for your input`,
        priority: 'notification',
        chime: 'prompt',
        maxAgeMs: NOTICE_MAX_AGE_MS,
        dedupKey: 'idle prompt',
        once: IDLE_REMINDER_SECONDS,
        idlePrompt: true,
      };
    case 'info':
      if (!continuous) return { kind: 'none', reason: `Notification ${type} is heard ${CONTINUOUS_ONLY}` };
      return {
        kind: 'speak',
        text: noticeText(project, message),
        priority: 'notification',
        chime: 'attention',
        maxAgeMs: NOTICE_MAX_AGE_MS,
      };
    case 'quiet':
      return { kind: 'none', reason: `Notification ${type} echoes what the user just did; never spoken` };
    default:
      return {
        kind: 'speak',
        text: noticeText(project, message),
        priority: 'notification',
        chime: 'attention',
        maxAgeMs: NOTICE_MAX_AGE_MS,
      };
  }
}

/** What SessionStart says for each `source` (continuous mode); undefined says nothing. */
export const SESSION_START_WORDS: Record<string, string | undefined> = {
  startup: 'started',
  resume: 'resumed',
  fork: 'forked',
  // The user typed /clear: they are looking at the session.
  clear: undefined,
  // After a compaction PreCompact has spoken already.
  compact: undefined,
};

const CONTINUOUS_ONLY = 'only in notify: chatty (or continuous)';

/**
 * Whether an event says where the person is (voxd's focus, docs/attention.md): a prompt typed in the
 * session, or the session started or resumed (not a /clear or a compaction, which keep it where it is).
 */
export function focusReason(event: string, payload: HookPayload): 'prompt' | 'start' | undefined {
  if (event === 'UserPromptSubmit') return 'prompt';
  const source = str(payload.source) || 'startup';
  return event === 'SessionStart' && (source === 'startup' || source === 'resume') ? 'start' : undefined;
}

/** The events a project with `approveByVoice: true` may answer by voice (voice/voice-answer.ts). */
export const VOICE_EVENTS: ReadonlySet<string> = new Set(['PermissionRequest', 'Elicitation']);

/** Decide what a hook event sounds like. Never throws. */
export function decideHook(event: string, payload: HookPayload, ctx: HookContext): HookAction {
  const project = ctx.projectName;
  if (ctx.notify === 'off') return { kind: 'none', reason: 'notify is off for this project' };
  const continuous = ctx.notify === 'continuous' || ctx.notify === 'chatty';
  switch (event) {
    case 'PermissionRequest':
      if (ctx.unattended === true && ctx.unattendedPrompts !== true) return NOBODY;
      // Announced at once; the decision stays the user's (the hook outputs none).
      return permissionAction(project, str(payload.tool_name) || undefined, '');
    case 'Notification':
      return notification(payload, ctx, continuous);
    case 'Stop': {
      if (payload.stop_hook_active === true || payload.stop_hook_active === 'true') {
        return { kind: 'none', reason: 'stop_hook_active: Claude continues because of a Stop hook' };
      }
      // quiet: the end of a turn is the done chime, not words.
      if (ctx.notify === 'quiet') return { kind: 'chime', signal: 'done', priority: 'message' };
      if (ctx.narrated)
        return { kind: 'none', reason: 'the reply was narrated while it was written (narrate: stream)' };
      const summary = ctx.narrate === 'off' ? '' : summarize(str(payload.last_assistant_message));
      return {
        kind: 'speak',
        text: summary || `${project} is done`,
        priority: 'text',
        chime: 'done',
        maxAgeMs: STOP_MAX_AGE_MS,
      };
    }
    case 'StopFailure':
      // Its last_assistant_message is the API's error text: never read out.
      return {
        kind: 'speak',
        text: failureText(project, str(payload.error)),
        priority: 'message',
        chime: 'error',
        maxAgeMs: STOP_MAX_AGE_MS,
        needsPerson: true,
      };
    case 'SubagentStop':
      if (!continuous) return { kind: 'none', reason: `SubagentStop is heard ${CONTINUOUS_ONLY}` };
      if (payload.stop_hook_active === true || payload.stop_hook_active === 'true') {
        return { kind: 'none', reason: 'stop_hook_active: the subagent continues because of a Stop hook' };
      }
      return { kind: 'chime', signal: 'done', priority: 'notification' };
    case 'SessionStart': {
      if (!continuous) return { kind: 'none', reason: `SessionStart is heard ${CONTINUOUS_ONLY}` };
      const source = str(payload.source) || 'startup';
      const what = Object.hasOwn(SESSION_START_WORDS, source) ? SESSION_START_WORDS[source] : undefined;
      if (!what) return { kind: 'none', reason: `SessionStart from ${source} says nothing` };
      return {
        kind: 'speak',
        text: `${project} session ${what}`,
        priority: 'notification',
        chime: 'attention',
        maxAgeMs: NOTICE_MAX_AGE_MS,
      };
    }
    case 'SessionEnd':
      if (!continuous) return { kind: 'none', reason: `SessionEnd is heard ${CONTINUOUS_ONLY}` };
      return { kind: 'chime', signal: 'done', priority: 'notification' };
    case 'PreCompact':
      if (!continuous) return { kind: 'none', reason: `PreCompact is heard ${CONTINUOUS_ONLY}` };
      return {
        kind: 'speak',
        text: `${project} is compacting context`,
        priority: 'notification',
        chime: 'attention',
        maxAgeMs: NOTICE_MAX_AGE_MS,
      };
    case 'Elicitation':
      // Its dialog is announced by the Notification elicitation_dialog that follows; only approveByVoice asks here.
      return {
        kind: 'none',
        reason:
          'an elicitation is announced by its elicitation_dialog notification (approveByVoice: true asks one choice by voice)',
      };
    default:
      return { kind: 'none', reason: `vox does not handle ${event || 'an unnamed'} event` };
  }
}

/**
 * The request voxd gets for an action (undefined for `none`), the same from
 * `vox hook` and from the `hook` tool of `vox mcp`.
 */
export function hookDelivery(action: HookAction, config: ResolvedConfig, session: string): Delivery | undefined {
  if (action.kind === 'none') return undefined;
  if (action.kind === 'chime')
    return { route: '/v1/chime', body: { signal: action.signal, session, priority: action.priority } };
  return buildDelivery(action.text, config, session, {
    priority: action.priority,
    ...(action.chime ? { chime: action.chime } : {}),
    ...(action.maxAgeMs !== undefined ? { maxAgeMs: action.maxAgeMs } : {}),
    ...(action.once !== undefined ? { once: Math.max(action.once, config.values.dedup) } : {}),
    // One session's repeat is a duplicate; the same words from two sessions are two events.
    dedupKey: `${session} ${action.dedupKey ?? action.text}`,
    ...(action.idlePrompt ? { idlePrompt: true } : {}),
    ...(action.needsPerson ? { needsPerson: true } : {}),
  });
}
