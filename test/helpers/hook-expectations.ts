/** The hook policy table, as the end-to-end tests check it (docs/claude-code.md has it in words). */
export interface HistoryEntry {
  id: string;
  text: string;
  kind: 'speech' | 'chime';
  priority: string;
  session?: string;
  outcome: string;
}

/** voxd's history, oldest first (GET /v1/status lists it newest first). */
export async function historyInOrder(d: {
  api(method: string, path: string): Promise<{ body: any }>;
}): Promise<HistoryEntry[]> {
  return ((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).slice().reverse();
}

/** What each entry came to, as a test compares it: its text, priority (and session), spoken or deduped. */
export function heard(hs: HistoryEntry[], withSession = false): string[][] {
  return hs.map((h) => [
    h.text,
    h.priority,
    ...(withSession ? [h.session ?? ''] : []),
    h.outcome === 'deduped' ? 'deduped' : 'spoken',
  ]);
}

export type Expect = { kind: 'speech' | 'chime'; text: string; priority: string; session: string } | 'silence';

export const STOP_SUMMARY =
  'I split the checkout module into three files, added tests for the refund path, and fixed the rounding bug. All 47 tests pass.';

/**
 * What each fixture in test/fixtures/hooks must produce, through `vox hook`
 * (hooks.e2e) and through the hook tool of `vox mcp` (mcp-tool-hooks.e2e), in
 * projects where `api` has notify: continuous and `shop` has notify: normal.
 */
export const EXPECTED: Record<string, Expect> = {
  'notification-auth-success.json': 'silence',
  // Narration is asked for by narrate: stream (narration.e2e, claude-narration.e2e); by default it says nothing.
  'message-display-0.json': 'silence',
  'message-display-1-final.json': 'silence',
  'notification-elicitation.json': {
    kind: 'speech',
    text: 'api: The deploy server needs your input',
    priority: 'important',
    session: 'api#5e6f7a',
  },
  'permission-request.json': {
    kind: 'speech',
    text: 'api needs your permission to use Bash',
    priority: 'important',
    session: 'api#9a1b2c',
  },
  'session-start-fork.json': {
    kind: 'speech',
    text: 'api session forked',
    priority: 'notification',
    session: 'api#7d8e9f',
  },
  'stop-failure.json': {
    kind: 'speech',
    text: 'shop: the request failed, the API is overloaded',
    priority: 'message',
    session: 'shop#3c07f0',
  },
  'notification-idle.json': {
    kind: 'speech',
    text: 'api is waiting for your input',
    priority: 'notification',
    session: 'api#9a1b2c',
  },
  'notification-permission.json': {
    kind: 'speech',
    text: 'api needs your permission to use Bash',
    priority: 'important',
    session: 'api#9a1b2c',
  },
  'session-end.json': { kind: 'chime', text: '(done chime)', priority: 'notification', session: 'api#5e6f7a' },
  'session-start.json': {
    kind: 'speech',
    text: 'api session started',
    priority: 'notification',
    session: 'api#5e6f7a',
  },
  'stop-active.json': 'silence',
  'stop.json': { kind: 'speech', text: STOP_SUMMARY, priority: 'text', session: 'shop#3c07f0' },
  'subagent-stop.json': { kind: 'chime', text: '(done chime)', priority: 'notification', session: 'api#5e6f7a' },
};
