/**
 * Texts said to this session with `vox talk`, from voxd's talk inbox
 * (POST /v1/talk/wait, a long poll), sent to the client as the Claude Code
 * channel notification `notifications/claude/channel {content, meta}`.
 *
 * Claude Code answers no notification, so vox cannot learn whether a channel
 * was shown: it gates channels (see docs/talk-back.md "Talking to a session").
 * Every text is also kept (bounded) for the session's next listen or converse,
 * which returns it first: the way in that works whatever the gate.
 */
import type { TalkWaitResponse } from '@vox/protocol';

export const CHANNEL_METHOD = 'notifications/claude/channel';
const POLL_MS = 25_000;
const MAX_HELD = 16;

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
}

/** Polls until `signal` aborts; never throws. */
export async function runChannel(o: ChannelOptions): Promise<void> {
  const { call } = await import('../client/call.js');
  const { projectNameFor } = await import('../project/config.js');
  const { sessionLabel } = await import('../project/session.js');
  // Polling never starts voxd: the first call that needs it does.
  const env = { ...o.env, VOX_NO_AUTOSTART: '1' };
  let backoff = 500;
  while (!o.signal.aborted) {
    const session = sessionLabel(projectNameFor(o.cwd), o.env);
    try {
      const reply = await call<TalkWaitResponse>(
        env,
        'POST',
        '/v1/talk/wait',
        { session, waitMs: POLL_MS },
        POLL_MS + 5000,
        { signal: o.signal, startTimeoutMs: 1000 },
      );
      if (reply.status !== 200) throw new Error(`HTTP ${reply.status}`);
      backoff = 500;
      for (const content of reply.body.texts) {
        held.push(content);
        if (held.length > MAX_HELD) held.shift();
        o.notify({ jsonrpc: '2.0', method: CHANNEL_METHOD, params: { content, meta: { session } } });
      }
    } catch {
      if (o.signal.aborted) return;
      // voxd down or older than vox talk: try again, slower each time, at most every 10 s.
      await new Promise((r) => setTimeout(r, backoff).unref());
      backoff = Math.min(backoff * 2, 10_000);
    }
  }
}
