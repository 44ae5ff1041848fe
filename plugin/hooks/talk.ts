/**
 * `/vox-talk`'s pure part (the mod in vox-mod.tsx makes the calls): the
 * listen it asks voxd for, how long the mod waits for it, and what it makes
 * of voxd's answer: a prompt to submit, or a quiet line and nothing sent.
 * No Claude Code API here, so node tests import this file as it is.
 *
 * Design notes:
 * - The listen is `vox talk`'s push-to-talk (barge-in): it cuts the speech
 *   playing, goes to the head of the microphone's queue and takes a floor
 *   another session keeps; voxd's own limits end the recording (silence after
 *   speech, nothing said within the start timeout, the maximum).
 * - `ListenRequest` and `ListenAnswer` restate the part of @vox/protocol's
 *   wire types the mod sends and reads: a mod cannot import a package.
 * - The prompt is marked as spoken with a prefix the model and the person
 *   both read (SPOKEN_MARK); Claude Code also shows that the vox plugin sent it.
 */

export interface TalkListenRequest {
  bargeIn: true;
  session: string;
  maxSeconds: number;
  waitMs: number;
}

export interface ListenAnswer {
  text?: string;
  transcribed?: boolean;
  reason?: string;
  endedBy?: string;
}

/** The longest recording, in s (voxd's default), and how long to queue behind a listen that is recording. */
const MAX_SECONDS = 30;
const WAIT_MS = 10_000;
/** Beyond the recording and the queue: the prompt chime, the recorder's start, the transcriber (voxd's default 30 s). */
const SLACK_MS = 40_000;

/** What the model reads before the words: they were spoken, so a word may be misheard. */
export const SPOKEN_MARK = '(spoken) ';
/** Longest transcript submitted, in characters (30 s of speech is far less). */
const MAX_CHARS = 4000;

export function talkRequest(session: string): TalkListenRequest {
  return { bargeIn: true, session, maxSeconds: MAX_SECONDS, waitMs: WAIT_MS };
}

/** How long the mod waits for voxd's answer before it ends its own listen. */
export function talkBoundMs(r: TalkListenRequest): number {
  return r.maxSeconds * 1000 + r.waitMs + SLACK_MS;
}

/**
 * The session's label for the listen, as voxd's status and band show it:
 * one it already has, else the project folder's name and the short id (vox's
 * own labels end in the same short id, so the band knows it either way).
 */
export function talkLabel(known: readonly string[], cwd: string, shortId: string): string {
  const name = (cwd.replace(/\/+$/, '').split('/').pop() ?? '').replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40);
  return known[0] ?? `${name || 'claude'}#${shortId}`;
}

/** Control characters and line breaks out of a transcript: the prompt is one plain line. */
function plain(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export type TalkOutcome = { submit: string } | { quiet: string };

/** voxd's answer to the listen: the prompt to submit, or the quiet line that says why nothing was sent. */
export function talkOutcome(answer: ListenAnswer): TalkOutcome {
  const words = plain(answer.text ?? '').slice(0, MAX_CHARS);
  if (words) return { submit: `${SPOKEN_MARK}${words}` };
  const why = answer.reason ? plain(answer.reason).slice(0, 200) : 'nothing was heard';
  return { quiet: `vox-talk: ${why}; nothing sent` };
}
