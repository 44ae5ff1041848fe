/**
 * Texts said to this session with `vox talk`, from voxd's talk inbox
 * (POST /v1/talk/wait, a long poll), sent to the client as the Claude Code
 * channel notification `notifications/claude/channel {content, meta}`.
 *
 * The inbox of the label is this process's: every poll presents one secret,
 * made here, so another holder of voxd's token cannot take its texts, and a
 * restarted voxd is registered to again by the next poll. A poll that comes
 * back empty early, or is refused, waits before the next (doubling, at most
 * 10 s): it never spins.
 *
 * The content is marked as what the person said (a prefix, and meta
 * `from`/`said_by`), with `&`, `<` and `>` escaped: Claude Code 2.1.332 wraps
 * it as `<channel source="vox" …>\ncontent\n</channel>`, escaping the meta's
 * values but only a closing channel tag in the content, so a text could
 * otherwise forge other markup.
 *
 * Claude Code answers no notification, so vox cannot learn whether a channel
 * was shown: each poll carries what vox mcp could learn of the gate from its
 * session's command line (channel-gate.ts), which voxd hands to `vox talk`.
 * Every text is also kept (bounded) for the session's next listen or converse,
 * which returns it first: the way in that works whatever the gate.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { ChannelGate, TalkWaitRequest, TalkWaitResponse } from '@vox/protocol';

export const CHANNEL_METHOD = 'notifications/claude/channel';
const POLL_MS = 25_000;
const MAX_HELD = 16;
/** A poll answered sooner than this with nothing was no long poll (a full or closing inbox): back off. */
const EARLY_MS = POLL_MS / 2;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
/** What the model reads before the text: whose words these are. */
export const SPOKEN_PREFIX = 'The user said with vox talk: ';

const held: string[] = [];

/** The texts delivered since the last listen or converse took them, oldest first. */
export function takeHeld(): string[] {
  return held.splice(0);
}

export interface ChannelOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  notify(message: { jsonrpc: '2.0'; method: string; params: { content: string; meta: Record<string, string> } }): void;
  log(line: string): void;
  signal: AbortSignal;
  /** Waits `ms` between polls; default a timer (a test records the pauses instead). */
  pause?: (ms: number) => Promise<void>;
  /** Claude Code's channel gate for this session; default what the session's command line says (channel-gate.ts). */
  gate?: ChannelGate;
}

/** The channel notification's content for a text said with `vox talk`: marked, its markup escaped. */
export function channelContent(text: string): string {
  return SPOKEN_PREFIX + text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * 16 random bytes as hex, the registration's secret: from /dev/urandom where
 * it exists, so `vox mcp` need not load node:crypto (about 5 ms of start-up
 * and 1 MB of every session's memory, bench/mcp.mjs); else from node:crypto.
 */
async function secretHex(): Promise<string> {
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      const bytes = Buffer.alloc(16);
      if (readSync(fd, bytes, 0, 16, null) === 16) return bytes.toString('hex');
    } finally {
      closeSync(fd);
    }
  } catch {
    // No /dev/urandom (Windows): node:crypto below.
  }
  const { randomBytes } = await import('node:crypto');
  return randomBytes(16).toString('hex');
}

/** Polls until `signal` aborts; never throws. */
export async function runChannel(o: ChannelOptions): Promise<void> {
  const { call } = await import('../client/call.js');
  const { projectNameFor } = await import('../project/config.js');
  const { sessionLabel } = await import('../project/session.js');
  const { visible, printable } = await import('@vox/protocol');
  const pause = o.pause ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
  // Polling never starts voxd: the first call that needs it does.
  const env = { ...o.env, VOX_NO_AUTOSTART: '1' };
  const secret = await secretHex();
  const channel = o.gate ?? (await import('./channel-gate.js')).sessionChannelGate(o.env);
  let backoff = FIRST_BACKOFF_MS;
  let refusedSaid = false;
  // A voxd older than the gate refuses the field (400): poll without it.
  let sendGate = true;
  while (!o.signal.aborted) {
    // voxd refuses a label with control characters; a directory's name may hold them.
    const session = visible(sessionLabel(projectNameFor(o.cwd), o.env));
    const startedAt = Date.now();
    let early = true;
    try {
      const body: TalkWaitRequest = { session, secret, waitMs: POLL_MS, ...(sendGate ? { channel } : {}) };
      const reply = await call<TalkWaitResponse | { message?: string }>(
        env,
        'POST',
        '/v1/talk/wait',
        body,
        POLL_MS + 5000,
        {
          signal: o.signal,
          startTimeoutMs: 1000,
        },
      );
      if (reply.status === 400 && sendGate) {
        sendGate = false;
        continue;
      }
      if (reply.status !== 200) {
        if (!refusedSaid && reply.status === 409)
          o.log(`vox mcp: vox talk: ${printable(String((reply.body as { message?: string }).message))}; trying again`);
        refusedSaid = reply.status === 409;
        throw new Error(`HTTP ${reply.status}`);
      }
      refusedSaid = false;
      const { texts } = reply.body as TalkWaitResponse;
      early = texts.length === 0 && Date.now() - startedAt < EARLY_MS;
      for (const text of texts) {
        held.push(text);
        if (held.length > MAX_HELD) held.shift();
        o.notify({
          jsonrpc: '2.0',
          method: CHANNEL_METHOD,
          params: { content: channelContent(text), meta: { session, from: 'vox talk', said_by: 'user' } },
        });
      }
    } catch {
      if (o.signal.aborted) return;
      // voxd down, older than vox talk, or the label another's: try again, slower each time.
    }
    if (!early) {
      backoff = FIRST_BACKOFF_MS;
      continue;
    }
    await pause(backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
