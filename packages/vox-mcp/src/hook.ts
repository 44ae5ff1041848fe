/**
 * What a Claude Code hook event should sound like: pure logic from the event's
 * payload and the project's resolved settings to one action. No I/O here;
 * `commands/hook.ts` reads stdin, resolves the config and sends the action.
 *
 * Design notes (docs/claude-code.md has the table):
 * - `notify` decides how much the hooks say. `off` silences every event,
 *   permission prompts included: it is the one switch that makes vox's hooks
 *   quiet in a project without uninstalling them (`speak: false` keeps them,
 *   as chimes). `normal` speaks Notification and Stop. `continuous` adds
 *   SubagentStop, SessionStart, SessionEnd and PreCompact.
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
import type { NotifyMode } from './config.js';

/** The fields vox reads from a hook payload. Claude Code sends more; they are ignored. */
export interface HookPayload {
  session_id?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
  /** Notification */
  message?: unknown;
  notification_type?: unknown;
  /** Stop, SubagentStop */
  stop_hook_active?: unknown;
  last_assistant_message?: unknown;
  /** SessionStart: startup, resume, clear, compact */
  source?: unknown;
  /** PreCompact: manual, auto */
  trigger?: unknown;
  [key: string]: unknown;
}

export type HookAction =
  | {
      kind: 'speak';
      text: string;
      priority: Priority;
      /** Played instead when the project is muted (`speak: false`). */
      chime?: ChimeSignal;
      /** Drop the speech if it has not started within this many ms. */
      maxAgeMs?: number;
    }
  | { kind: 'chime'; signal: ChimeSignal; priority: Priority }
  | { kind: 'none'; reason: string };

export interface HookContext {
  /** The project's `notify` setting. */
  notify: NotifyMode;
  /** Spoken name of the project, e.g. `api`. */
  projectName: string;
}

/** A permission prompt not spoken within this time has most likely been answered. */
export const PERMISSION_MAX_AGE_MS = 60_000;
/** A Stop summary not spoken within this time is stale. */
export const STOP_MAX_AGE_MS = 120_000;
/** Idle pings, session start, compaction: noise once old. */
export const NOTICE_MAX_AGE_MS = NOTIFICATION_MAX_AGE_MS;

/** Longest Stop summary, in characters. */
export const SUMMARY_MAX_CHARS = 200;
/** Sentences in a Stop summary. */
export const SUMMARY_SENTENCES = 2;

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** "Claude needs your permission to use Bash" → "api needs your permission to use Bash". */
export function permissionText(project: string, message: string): string {
  const m = /^claude(?: code)?\s+needs\s+your\s+permission\b\s*(.*)$/is.exec(message);
  if (m) {
    const rest = m[1]!.replace(/[.!\s]+$/, '');
    if (!rest) return `${project} needs your permission`;
    return /^(?:to|for)\b/i.test(rest) ? `${project} needs your permission ${rest}` : `${project} needs your permission: ${rest}`;
  }
  if (!message) return `${project} needs your permission`;
  return `${project} needs your permission: ${message}`;
}

/** Claude Code's message with "Claude" replaced by the project's name, or prefixed by it. */
export function noticeText(project: string, message: string): string {
  if (!message) return `${project} needs your attention`;
  const m = /^claude(?: code)?\b\s*(.*)$/is.exec(message);
  if (m && m[1]) return `${project} ${m[1]}`;
  return `${project}: ${message}`;
}

// Abbreviations whose period does not end a sentence.
const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Mrs|Ms|Dr|St|No|Fig)\.$/i;

/** Splits prose into sentences at . ! ? followed by white space (or the end). */
function sentencesOf(paragraph: string): string[] {
  const out: string[] = [];
  let start = 0;
  const re = /[.!?]+(?=\s|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(paragraph))) {
    const end = m.index + m[0].length;
    const candidate = paragraph.slice(start, end).trim();
    if (m[0] === '.' && ABBREVIATION.test(paragraph.slice(0, end))) continue;
    // "v1.2" or "index.ts" never match (no white space after the dot); a lone number like "1." in "step 1. Then" does: keep it.
    if (candidate) out.push(candidate);
    start = end;
  }
  const tail = paragraph.slice(start).trim();
  if (tail) out.push(tail);
  return out;
}

/**
 * The prose blocks of a markdown message, in order: paragraphs and list items,
 * joined within a block; code fences, headings, tables, rules and quotes skipped.
 */
function proseBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    if (current.length) blocks.push(current.join(' '));
    current = [];
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && line.startsWith(fence)) fence = undefined;
      continue;
    }
    if (f) {
      flush();
      fence = f[1]!;
      continue;
    }
    if (line === '' || /^#{1,6}\s/.test(line) || /^\|/.test(line) || /^(?:[-*_]\s*){3,}$/.test(line)) {
      flush();
      continue;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      current.push(item[1]!);
      continue;
    }
    current.push(line.replace(/^>\s?/, ''));
  }
  flush();
  return blocks;
}

/** A sentence that ends without punctuation (a list item, a line) gets a period. */
function closed(sentence: string): string {
  return /[.!?…:;]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Cuts at a word boundary within `max` characters and adds an ellipsis. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/**
 * The start of Claude's last message, for a Stop hook: its first `sentences`
 * sentences of prose, or fewer when they would pass `maxChars`; the first
 * sentence alone is clipped at a word. Empty when the message has no prose.
 */
export function summarize(message: string, options: { sentences?: number; maxChars?: number } = {}): string {
  const want = options.sentences ?? SUMMARY_SENTENCES;
  const max = options.maxChars ?? SUMMARY_MAX_CHARS;
  const picked: string[] = [];
  for (const block of proseBlocks(message)) {
    for (const s of sentencesOf(block)) {
      picked.push(closed(s));
      if (picked.length >= want) break;
    }
    if (picked.length >= want) break;
  }
  if (picked.length === 0) return '';
  let out = picked[0]!;
  for (const s of picked.slice(1)) {
    if (out.length + 1 + s.length > max) break;
    out = `${out} ${s}`;
  }
  return clip(out, max);
}

const CONTINUOUS_ONLY = 'only in notify: continuous';

/** Decide what a hook event sounds like. Never throws. */
export function decideHook(event: string, payload: HookPayload, ctx: HookContext): HookAction {
  const project = ctx.projectName;
  if (ctx.notify === 'off') return { kind: 'none', reason: 'notify is off for this project' };
  const continuous = ctx.notify === 'continuous';
  switch (event) {
    case 'Notification': {
      const type = str(payload.notification_type);
      const message = str(payload.message);
      if (type === 'permission_prompt') {
        return { kind: 'speak', text: permissionText(project, message), priority: 'important', chime: 'prompt', maxAgeMs: PERMISSION_MAX_AGE_MS };
      }
      if (type === 'idle_prompt') {
        return { kind: 'speak', text: `${project} is waiting for your input`, priority: 'notification', chime: 'prompt', maxAgeMs: NOTICE_MAX_AGE_MS };
      }
      return { kind: 'speak', text: noticeText(project, message), priority: 'notification', chime: 'attention', maxAgeMs: NOTICE_MAX_AGE_MS };
    }
    case 'Stop': {
      if (payload.stop_hook_active === true) return { kind: 'none', reason: 'stop_hook_active: Claude continues because of a Stop hook' };
      const summary = summarize(str(payload.last_assistant_message));
      return { kind: 'speak', text: summary || `${project} is done`, priority: 'text', chime: 'done', maxAgeMs: STOP_MAX_AGE_MS };
    }
    case 'SubagentStop':
      if (!continuous) return { kind: 'none', reason: `SubagentStop is heard ${CONTINUOUS_ONLY}` };
      if (payload.stop_hook_active === true) return { kind: 'none', reason: 'stop_hook_active: the subagent continues because of a Stop hook' };
      return { kind: 'chime', signal: 'done', priority: 'notification' };
    case 'SessionStart': {
      if (!continuous) return { kind: 'none', reason: `SessionStart is heard ${CONTINUOUS_ONLY}` };
      const source = str(payload.source);
      // After a compaction PreCompact has spoken already.
      if (source === 'compact') return { kind: 'none', reason: 'session restarted after compaction (PreCompact announced it)' };
      const what = source === 'resume' ? 'resumed' : source === 'clear' ? 'cleared' : 'started';
      return { kind: 'speak', text: `${project} session ${what}`, priority: 'notification', chime: 'attention', maxAgeMs: NOTICE_MAX_AGE_MS };
    }
    case 'SessionEnd':
      if (!continuous) return { kind: 'none', reason: `SessionEnd is heard ${CONTINUOUS_ONLY}` };
      return { kind: 'chime', signal: 'done', priority: 'notification' };
    case 'PreCompact':
      if (!continuous) return { kind: 'none', reason: `PreCompact is heard ${CONTINUOUS_ONLY}` };
      return { kind: 'speak', text: `${project} is compacting context`, priority: 'notification', chime: 'attention', maxAgeMs: NOTICE_MAX_AGE_MS };
    default:
      return { kind: 'none', reason: `vox does not handle ${event || 'an unnamed'} event` };
  }
}
