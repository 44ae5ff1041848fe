/**
 * An MCP server's elicitation that asks for one choice, answered by voice
 * (`approveByVoice: true`, the same opt-in as permission prompts). Claude
 * Code 2.1.332 runs the Elicitation hook before it shows the dialog, and
 * takes `hookSpecificOutput: {hookEventName: "Elicitation", action, content}`
 * from it; with no output the dialog is shown as usual.
 *
 * Only a form whose schema has exactly one field, and that field a choice, is
 * asked: a string `enum` (with `enumNames` as its labels, when given), a
 * `oneOf` of `{const, title}`, or a boolean (yes or no). Free text, numbers,
 * several fields and URL elicitations stay with the dialog: a transcript is
 * no way to type them.
 *
 * The grammar is as strict as the permission prompt's (permission-answer.ts
 * normalises): the transcript must be one option's label exactly, or
 * "cancel" (the dialog dismissed) or "decline". A schema whose labels cannot
 * be told apart that way (two the same, or one that sounds like cancel or
 * decline, "nevermind" too) is not asked. Nothing else decides.
 *
 * What is heard is what is chosen: the question and the labels are spoken
 * verbatim, never cleaned up or cut. A message or a label that cannot be said
 * as written (markup or a comment that speech would drop, a tag, control,
 * bidi or invisible characters, a message past MAX_MESSAGE_CHARS) leaves the
 * form to the screen: vox says so, logs why and decides nothing.
 */
import type { ResolvedConfig } from '../../project/config-schema.js';
import type { HookPayload } from '../event.js';
import { MAX_ANSWER_CHARS, normaliseAnswer } from './permission-answer.js';
import { oneLine, readObject } from './voice-decision.js';
import { agentIdsOf, askByVoice, leaveToScreen, type AgentIds, type VoiceOutcome } from './voice-turn.js';

/** Most options read out: a longer list is no question to answer by ear. */
export const MAX_OPTIONS = 8;
/** Longest option label, in characters. */
const MAX_LABEL_CHARS = 60;
/** Longest question spoken whole; a longer one is left to the screen, never cut. */
export const MAX_MESSAGE_CHARS = 200;
/** Labels that sound like ending the dialog (spaces aside): such a form is not asked. */
const CANCEL_LIKE = new Set([
  'cancel',
  'cancelit',
  'nevermind',
  'decline',
  'declineit',
  'dismiss',
  'abort',
  'forgetit',
  'stop',
]);
/** A label said as written: letters, digits, spaces, apostrophes, dots and dashes. */
const SAYABLE_LABEL = /^[\p{L}\p{N}][\p{L}\p{N} '.-]*$/u;
/** A question said as written: words and plain punctuation; no markup, tags, code or invisible characters. */
const SAYABLE_MESSAGE = /^[\p{L}\p{N} .,;:!?'"()/%&+-]*$/u;
/** Spoken answers that end the dialog without a choice, by the action each is. */
const ENDINGS: Readonly<Record<string, 'cancel' | 'decline'>> = {
  cancel: 'cancel',
  'cancel it': 'cancel',
  'never mind': 'cancel',
  nevermind: 'cancel',
  decline: 'decline',
  'decline it': 'decline',
};

export interface ChoiceOption {
  value: string | boolean;
  /** What is said, and what the user says back. */
  label: string;
}

export interface ElicitationChoice {
  session: string;
  projectName: string;
  /** The MCP server that asks (mcp_server_name). */
  server: string;
  message: string;
  /** The one field of the form. */
  field: string;
  options: ChoiceOption[];
  /** The elicitation's id when Claude Code sends one, else one made here; logged with the answer. */
  requestId: string;
  /** The payload's own session_id, logged as it came. */
  ids?: AgentIds;
  /** Why it cannot be said as written, when it cannot: the form is then left to the screen. */
  unsaid?: string;
}

export interface ElicitationOutput {
  hookSpecificOutput: {
    hookEventName: 'Elicitation';
    action: 'accept' | 'decline' | 'cancel';
    content?: Record<string, string | boolean>;
  };
}

/** A label, or the option's answer, as the grammar compares them. */
const key = (label: string) => normaliseAnswer(label);

/** The options of one field's schema, or undefined when it is not a single choice vox can ask. */
export function optionsOf(schema: unknown): ChoiceOption[] | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as { type?: unknown; enum?: unknown; enumNames?: unknown; oneOf?: unknown };
  let options: ChoiceOption[] | undefined;
  if (s.type === 'boolean') {
    options = [
      { value: true, label: 'yes' },
      { value: false, label: 'no' },
    ];
  } else if (s.type === 'string' && Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) && s.enumNames.length === s.enum.length ? s.enumNames : undefined;
    if (!s.enum.every((v) => typeof v === 'string') || (names && !names.every((n) => typeof n === 'string')))
      return undefined;
    options = (s.enum as string[]).map((value, i) => ({ value, label: (names?.[i] as string | undefined) ?? value }));
  } else if (s.type === 'string' && Array.isArray(s.oneOf)) {
    const items = s.oneOf as Array<{ const?: unknown; title?: unknown }>;
    if (!items.every((o) => typeof o === 'object' && o !== null && typeof o.const === 'string')) return undefined;
    options = items.map((o) => ({
      value: o.const as string,
      label: typeof o.title === 'string' ? o.title : (o.const as string),
    }));
  }
  if (!options || options.length < 2 || options.length > MAX_OPTIONS) return undefined;
  const keys = options.map((o) => (o.label.length <= MAX_LABEL_CHARS ? key(o.label) : ''));
  // Each label must be sayable, and tell itself apart from the others and from the endings.
  if (keys.some((k, i) => !k || keys.indexOf(k) !== i || k in ENDINGS || CANCEL_LIKE.has(k.replace(/\s+/g, ''))))
    return undefined;
  return options.map((o) => ({ ...o, label: oneLine(o.label) }));
}

/**
 * The voice question of an Elicitation hook event, when the project answers
 * by voice and the form is one choice; undefined otherwise (the dialog is
 * shown as usual).
 */
export function choiceOf(
  event: string,
  payload: HookPayload,
  config: ResolvedConfig,
  session: string,
): ElicitationChoice | undefined {
  if (event !== 'Elicitation' || config.values.approveByVoice !== true || config.values.notify === 'off')
    return undefined;
  if (payload.mode !== undefined && payload.mode !== 'form') return undefined;
  const schema = readObject(payload.requested_schema);
  const properties = readObject(schema?.properties);
  const fields = properties ? Object.keys(properties) : [];
  if (fields.length !== 1) return undefined;
  const field = fields[0]!;
  const options = optionsOf(properties![field]);
  if (!options) return undefined;
  const message = typeof payload.message === 'string' ? oneLine(payload.message) : '';
  const server =
    typeof payload.mcp_server_name === 'string' && payload.mcp_server_name.trim()
      ? oneLine(payload.mcp_server_name)
      : 'a server';
  const id =
    typeof payload.elicitation_id === 'string' && payload.elicitation_id.trim()
      ? payload.elicitation_id.trim().slice(0, 100)
      : `vox-${crypto.randomUUID()}`;
  const unsaid = unsayable(message, options);
  const ids = agentIdsOf(payload);
  return {
    session,
    projectName: config.projectName,
    server: SAYABLE_LABEL.test(server) ? server : 'a server',
    message,
    field,
    options,
    requestId: id,
    ...(ids.sessionId ? { ids: { sessionId: ids.sessionId } } : {}),
    ...(unsaid ? { unsaid } : {}),
  };
}

/** Why the question or a label cannot be said as written, or undefined. */
export function unsayable(message: string, options: readonly ChoiceOption[]): string | undefined {
  if (message.length > MAX_MESSAGE_CHARS) return `its question is longer than ${MAX_MESSAGE_CHARS} characters`;
  if (!SAYABLE_MESSAGE.test(message)) return 'its question holds markup, code or characters speech would not say';
  const label = options.find((o) => !SAYABLE_LABEL.test(o.label));
  if (label) return `the option ${JSON.stringify(label.label.slice(0, 40))} cannot be said as written`;
  return undefined;
}

/** What is said: who asks, the question, and the answers it takes. */
export function choiceText(c: Pick<ElicitationChoice, 'projectName' | 'server' | 'message' | 'options'>): string {
  const labels = c.options.map((o) => o.label);
  const list =
    labels.length === 2 ? `${labels[0]} or ${labels[1]}` : `${labels.slice(0, -1).join(', ')}, or ${labels.at(-1)}`;
  const question = c.message ? c.message.replace(/[:;,]+$/, '') : 'a choice';
  return `${c.projectName}: ${c.server} asks: ${question}${/[.?!\u2026]$/.test(question) ? '' : '?'} Say ${list}. Or say cancel.`;
}

/** The label a transcript names, "cancel" or "decline", or undefined. */
export function matchChoice(transcript: string, c: Pick<ElicitationChoice, 'options'>): string | undefined {
  if (transcript.length > MAX_ANSWER_CHARS) return undefined;
  const said = key(transcript);
  if (!said) return undefined;
  if (said in ENDINGS) return ENDINGS[said];
  return c.options.find((o) => key(o.label) === said)?.label;
}

/** The hook output for an answer (a label, "cancel" or "decline"). */
export function choiceOutput(answer: string, c: Pick<ElicitationChoice, 'field' | 'options'>): ElicitationOutput {
  if (answer === 'cancel' || answer === 'decline')
    return { hookSpecificOutput: { hookEventName: 'Elicitation', action: answer } };
  const option = c.options.find((o) => o.label === answer)!;
  return {
    hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { [c.field]: option.value } },
  };
}

/** Ask the choice by voice; the output, or none (the dialog is shown). Never throws; every outcome is logged. */
export function chooseByVoice(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  c: ElicitationChoice,
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<VoiceOutcome<string, ElicitationOutput>> {
  const logged = (output?: ElicitationOutput) => ({
    elicitation: c.server,
    action: output?.hookSpecificOutput.action ?? null,
  });
  if (c.unsaid)
    return leaveToScreen<string, ElicitationOutput>(
      env,
      config,
      {
        session: c.session,
        requestId: c.requestId,
        ...(c.ids ? { ids: c.ids } : {}),
        text: `${c.projectName}: ${c.server} asks a question that vox cannot say faithfully (${c.unsaid}). Answer it on screen.`,
        logged,
      },
      c.unsaid,
    );
  return askByVoice<string, ElicitationOutput>(
    env,
    config,
    {
      session: c.session,
      requestId: c.requestId,
      ...(c.ids ? { ids: c.ids } : {}),
      text: choiceText(c),
      verbatim: true,
      match: (transcript) => matchChoice(transcript, c),
      output: (answer) => choiceOutput(answer, c),
      grammar: [...c.options.map((o) => o.label), 'cancel', 'decline'].join(', '),
      logged,
    },
    options,
  );
}
