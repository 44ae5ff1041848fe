/**
 * A recap's words: what the person missed (recall.ts), grouped by session,
 * the session with the newest item last, each session's items oldest first.
 * Only the newest RECAP_MAX_ITEMS are said, each cut at ITEM_CHARS; the rest
 * are counted ("And 12 more."), so a recap of a thousand items is as short
 * to say, and as quick to start, as one of ten.
 */
import { randomUUID } from 'node:crypto';
import type { Admission, Admitted } from './admission.js';
import { RECAP_KEY, type Recall, type Recalled } from './recall.js';

/** Items said in one recap; older ones are counted. */
export const RECAP_MAX_ITEMS = 10;
/** Characters of one item said. */
const ITEM_CHARS = 150;
export const NOTHING_NEW = 'Nothing new since the last recap.';

/** The session's spoken name: its label without the id (`api#9a1b2c` is "api"). */
export function spokenSession(session: string | undefined): string {
  const name = session?.split('#')[0]?.trim();
  return name || 'no session';
}

/** What a recap of `missed` (oldest first) says, and how many sessions they came from. */
export function recapText(missed: readonly Recalled[]): { text: string; sessions: number } {
  if (missed.length === 0) return { text: NOTHING_NEW, sessions: 0 };
  const said = missed.slice(-RECAP_MAX_ITEMS);
  const more = missed.length - said.length;
  // Map order: a session moves to the end with each newer item, so the newest is last.
  const groups = new Map<string, string[]>();
  for (const r of said) {
    const name = spokenSession(r.session);
    const items = groups.get(name) ?? [];
    groups.delete(name);
    groups.set(name, [...items, sentence(r.text)]);
  }
  const sessions = new Set(missed.map((r) => spokenSession(r.session))).size;
  const parts = [`You missed ${missed.length === 1 ? 'one thing' : `${missed.length} things`}.`];
  for (const [name, items] of groups) parts.push(`From ${name}: ${items.join(' ')}`);
  if (more > 0) parts.push(`And ${more} more.`);
  return { text: parts.join(' '), sessions };
}

/** One item as a sentence of at most ITEM_CHARS. */
function sentence(text: string): string {
  let t = text.replace(/\s+/g, ' ').trim();
  if (t.length > ITEM_CHARS) t = `${t.slice(0, ITEM_CHARS).replace(/\s+\S*$/, '')}…`;
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/**
 * Speak the recap of what `recall` holds as missed, then mark it recapped
 * once the recap is queued (a recap refused, say for no audio output, leaves
 * the mark where it was). Items missed while it plays belong to the next.
 */
export async function speakRecap(
  admission: Admission,
  recall: Recall,
): Promise<Admitted & { items: number; sessions: number }> {
  const missed = recall.missed();
  const { text, sessions } = recapText(missed);
  const admitted = await admission.speech({ text, priority: 'message', dedupKey: `${RECAP_KEY}${randomUUID()}` });
  if (admitted.response.status === 'queued') recall.markRecapped(missed.at(-1)?.n);
  return { ...admitted, items: missed.length, sessions };
}
