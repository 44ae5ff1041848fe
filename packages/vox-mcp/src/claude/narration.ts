/**
 * Narration from Claude Code's hooks (`narrate: stream`): each MessageDisplay
 * batch goes to voxd's POST /v1/narration as it is shown, and a new prompt
 * (UserPromptSubmit) cuts what the session still narrates, under every label
 * it has had (a `/clear` gives it a new one). voxd speaks the
 * sentences (docs/claude-code.md, "Narration").
 *
 * Design notes:
 * - Only through the plugin's `mcp_tool` hooks (the `hook` tool of the
 *   session's `vox mcp`): Claude Code waits on the hook for every batch, and
 *   a process per batch (`vox hook`, ~70 ms) would hold the screen each
 *   time. The tool answers at once and sends the batch to voxd behind the
 *   session's earlier ones (`inOrder`): voxd takes batches by index, so they
 *   must arrive in order. Past MAX_BACKLOG unsent it waits, so a voxd that
 *   is down costs memory for no more than that.
 * - The session's `vox mcp` remembers that it narrated since the last Stop,
 *   so that Stop does not read the reply a second time (`narrated()`).
 * - A muted project (`speak: false`), `notify: off` or `quiet` narrates nothing; the
 *   announce label starts the message; pronunciations apply as to any text.
 * - A session that narrates asks voxd to warm its engine when its `vox mcp`
 *   starts and at each new prompt (`narrationWarm`): the first batch of a
 *   reply must not wait for the engine (the embedded eSpeak's worker starts
 *   on first use, 650 to 1,200 ms). A quiet project asks nothing, so voxd
 *   starts nothing for it.
 */
import {
  applyPronunciations,
  NARRATION_CUT_MAX_EARLIER,
  NARRATION_MAX_DELTA_CHARS,
  type NarrationCutRequest,
  type NarrationRequest,
  type NarrationWarmRequest,
} from '@vox/protocol';
import type { ResolvedConfig } from '../project/config-schema.js';
import { announceLabel } from '../project/config.js';
import { notNarrating } from './narration-profile.js';
import type { HookPayload } from '../hooks/event.js';

export type NarrationDelivery =
  { route: '/v1/narration'; body: NarrationRequest } | { route: '/v1/narration/cut'; body: NarrationCutRequest };

/** True when this project reads replies as they are written (the rule the vox mod's declaration tells voxd). */
export function narrates(config: ResolvedConfig): boolean {
  return notNarrating(config) === undefined;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The request for a MessageDisplay batch or a new prompt; undefined when the event narrates nothing. */
export function narrationDelivery(
  event: string,
  payload: HookPayload,
  config: ResolvedConfig,
  session: string,
  earlier: readonly string[] = [],
): NarrationDelivery | undefined {
  if (!narrates(config)) return undefined;
  if (event === 'UserPromptSubmit') {
    // Every label the session has had: after /clear the reply before it still speaks under the old one.
    const others = [...new Set(earlier)].filter((l) => l !== session).slice(-NARRATION_CUT_MAX_EARLIER);
    return { route: '/v1/narration/cut', body: others.length ? { session, earlier: others } : { session } };
  }
  if (event !== 'MessageDisplay') return undefined;
  const message = str(payload.message_id).trim();
  const index = Number(str(payload.index));
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(message) || !Number.isInteger(index) || index < 0) return undefined;
  const v = config.values;
  let delta = applyPronunciations(str(payload.delta), config.pronunciations);
  const label = announceLabel(config);
  // A line of its own: a reply that opens with a code fence must still open with one.
  if (label && index === 0) delta = `${label}:\n${delta}`;
  // Under -p the whole message is one batch: past voxd's limit, it is read up to a line that fits.
  if (delta.length > NARRATION_MAX_DELTA_CHARS) {
    const cut = delta.lastIndexOf('\n', NARRATION_MAX_DELTA_CHARS - 1);
    delta = delta.slice(0, cut > 0 ? cut + 1 : NARRATION_MAX_DELTA_CHARS);
  }
  const body: NarrationRequest = {
    session,
    message,
    index,
    final: str(payload.final) === 'true',
    delta,
    rate: v.rate,
    volume: v.volume,
  };
  if (v.voice !== undefined) body.voice = v.voice;
  if (v.engine !== 'auto') body.engine = v.engine;
  if (v.model !== undefined) body.model = v.model;
  return { route: '/v1/narration', body };
}

/** The warm-up request of a session whose project narrates; undefined when it does not. */
export function narrationWarm(config: ResolvedConfig, session: string): NarrationWarmRequest | undefined {
  if (!narrates(config)) return undefined;
  const v = config.values;
  const body: NarrationWarmRequest = { session };
  if (v.voice !== undefined) body.voice = v.voice;
  if (v.engine !== 'auto') body.engine = v.engine;
  if (v.model !== undefined) body.model = v.model;
  return body;
}

/** Batches of one session go to voxd one after another, in the order Claude Code showed them. */
const chains = new Map<string, { tail: Promise<unknown>; size: number }>();

/** Past this many batches not yet taken by voxd, the hook waits for them (a voxd that is slow or starting). */
export const MAX_BACKLOG = 32;

/** Run `send` after the session's earlier sends; resolves with its result. */
export function inOrder<T>(session: string, send: () => Promise<T>): Promise<T> {
  const chain = chains.get(session) ?? { tail: Promise.resolve(), size: 0 };
  chains.set(session, chain);
  chain.size++;
  const run = chain.tail.then(send);
  chain.tail = run
    .catch(() => undefined)
    .finally(() => {
      if (--chain.size === 0 && chains.get(session) === chain) chains.delete(session);
    });
  return run;
}

/** Resolves once every session's sends are done, or after `ms` (at exit: a batch answered is sent if it can be). */
export async function drain(ms: number): Promise<void> {
  if (chains.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...chains.values()].map((c) => c.tail)),
    new Promise((r) => (timer = setTimeout(r, ms))),
  ]);
  clearTimeout(timer);
}

/** Sends of the session not yet done. */
export function backlog(session: string): number {
  return chains.get(session)?.size ?? 0;
}

/** Sessions of this process that narrated since their last Stop. */
const narratedSessions = new Set<string>();

/** Note a batch narrated, or ask (and forget) at Stop whether the turn was narrated. */
export function noteNarrated(session: string): void {
  narratedSessions.add(session);
}

export function narrated(session: string): boolean {
  return narratedSessions.delete(session);
}
