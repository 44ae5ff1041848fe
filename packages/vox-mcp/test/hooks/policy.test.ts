/**
 * hook.ts: a table of payloads and settings → the action a hook takes; and
 * commands/hook.ts in process (stdin bounds, --dry-run, project name).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/commands/hook.js';
import type { NotifyMode } from '../../src/project/config-schema.js';
import { resolveConfig } from '../../src/project/config.js';
import {
  IDLE_REMINDER_SECONDS,
  NOTICE_MAX_AGE_MS,
  PERMISSION_DEDUP_SECONDS,
  PERMISSION_MAX_AGE_MS,
  STOP_MAX_AGE_MS,
  NOTIFICATION_POLICY,
  decideHook,
  unattended,
  hookDelivery,
  type HookAction,
} from '../../src/hooks/policy.js';
import type { HookPayload } from '../../src/hooks/event.js';
import { SUMMARY_MAX_CHARS, summarize } from '../../src/hooks/summary.js';
import {
  failureText,
  FAILURE_WORDS,
  noticeText,
  permissionText,
  permissionTool,
  spokenToolName,
} from '../../src/hooks/wording.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'fixtures', 'hooks');

function fixture(name: string): HookPayload {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as HookPayload;
}

const decide = (event: string, payload: HookPayload, notify: NotifyMode = 'normal', projectName = 'api'): HookAction =>
  decideHook(event, payload, { notify, projectName });

interface Row {
  name: string;
  event: string;
  payload: HookPayload;
  notify: NotifyMode;
  want: HookAction | { kind: 'none' };
}

const STOP_TEXT =
  'I split the checkout module into three files, added tests for the refund path, and fixed the rounding bug. All 47 tests pass.';

const PERMISSION_BASH: HookAction = {
  kind: 'speak',
  text: 'api needs your permission to use Bash',
  priority: 'important',
  chime: 'prompt',
  maxAgeMs: PERMISSION_MAX_AGE_MS,
  dedupKey: 'permission Bash',
  once: PERMISSION_DEDUP_SECONDS,
};

const ROWS: Row[] = [
  {
    name: 'permission prompt: important speech naming the project',
    event: 'Notification',
    payload: fixture('notification-permission.json'),
    notify: 'normal',
    want: PERMISSION_BASH,
  },
  {
    name: 'permission prompt in continuous mode: the same',
    event: 'Notification',
    payload: fixture('notification-permission.json'),
    notify: 'continuous',
    want: PERMISSION_BASH,
  },
  {
    name: 'PermissionRequest: announced at once, the same words and duplicate key as the later permission_prompt',
    event: 'PermissionRequest',
    payload: fixture('permission-request.json'),
    notify: 'normal',
    want: PERMISSION_BASH,
  },
  {
    name: 'PermissionRequest with notify off: silence',
    event: 'PermissionRequest',
    payload: fixture('permission-request.json'),
    notify: 'off',
    want: { kind: 'none' },
  },
  {
    name: 'PermissionRequest for an MCP tool: its spoken name',
    event: 'PermissionRequest',
    payload: { tool_name: 'mcp__plugin_vox_vox__record' },
    notify: 'normal',
    want: {
      ...PERMISSION_BASH,
      text: 'api needs your permission to use record from vox',
      dedupKey: 'permission mcp__plugin_vox_vox__record',
    },
  },
  {
    name: 'permission_prompt for an MCP tool: the same as its PermissionRequest',
    event: 'Notification',
    payload: {
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use mcp__plugin_vox_vox__record',
    },
    notify: 'normal',
    want: {
      ...PERMISSION_BASH,
      text: 'api needs your permission to use record from vox',
      dedupKey: 'permission mcp__plugin_vox_vox__record',
    },
  },
  {
    name: "a worker's permission prompt: the same as a permission prompt",
    event: 'Notification',
    payload: { notification_type: 'worker_permission_prompt', message: 'Claude needs your permission to use Bash' },
    notify: 'normal',
    want: PERMISSION_BASH,
  },
  {
    name: 'a permission notice with no type (older Claude Code): still a permission prompt',
    event: 'Notification',
    payload: { message: 'Claude needs your permission to use Bash' },
    notify: 'normal',
    want: PERMISSION_BASH,
  },
  {
    name: 'StopFailure: briefly, the request failed, at message priority',
    event: 'StopFailure',
    payload: fixture('stop-failure.json'),
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api: the request failed, the API is overloaded',
      priority: 'message',
      chime: 'error',
      maxAgeMs: STOP_MAX_AGE_MS,
      needsPerson: true,
    },
  },
  {
    name: 'StopFailure with an error vox does not know: no details, never the raw API text',
    event: 'StopFailure',
    payload: { error: 'unknown', last_assistant_message: 'API Error: 500 {"type":"error"}' },
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api: the request failed',
      priority: 'message',
      chime: 'error',
      maxAgeMs: STOP_MAX_AGE_MS,
      needsPerson: true,
    },
  },
  {
    name: 'elicitation_dialog needs the user: important, its message',
    event: 'Notification',
    payload: fixture('notification-elicitation.json'),
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api: The deploy server needs your input',
      priority: 'important',
      chime: 'prompt',
      maxAgeMs: PERMISSION_MAX_AGE_MS,
    },
  },
  {
    name: 'agent_needs_input needs the user: important',
    event: 'Notification',
    payload: { notification_type: 'agent_needs_input', message: 'Claude needs your input' },
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api needs your input',
      priority: 'important',
      chime: 'prompt',
      maxAgeMs: PERMISSION_MAX_AGE_MS,
    },
  },
  {
    name: 'auth_success: silence',
    event: 'Notification',
    payload: fixture('notification-auth-success.json'),
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'elicitation_complete: silence (an echo)',
    event: 'Notification',
    payload: { notification_type: 'elicitation_complete', message: 'done' },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'elicitation_response: silence (an echo)',
    event: 'Notification',
    payload: { notification_type: 'elicitation_response', message: 'sent' },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'agent_completed in normal mode: silence',
    event: 'Notification',
    payload: { notification_type: 'agent_completed', message: 'Agent finished' },
    notify: 'normal',
    want: { kind: 'none' },
  },
  {
    name: 'agent_completed in continuous mode: a notification',
    event: 'Notification',
    payload: { notification_type: 'agent_completed', message: 'Agent finished' },
    notify: 'continuous',
    want: {
      kind: 'speak',
      text: 'api: Agent finished',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'permission prompt with notify off: silence',
    event: 'Notification',
    payload: fixture('notification-permission.json'),
    notify: 'off',
    want: { kind: 'none' },
  },
  {
    name: 'idle prompt: a notification',
    event: 'Notification',
    payload: fixture('notification-idle.json'),
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api is waiting for your input',
      priority: 'notification',
      chime: 'prompt',
      maxAgeMs: NOTICE_MAX_AGE_MS,
      dedupKey: 'idle prompt',
      once: IDLE_REMINDER_SECONDS,
      idlePrompt: true,
    },
  },
  {
    name: 'an unknown (future) notification type: the safe default, notification priority, "Claude" becomes the project',
    event: 'Notification',
    payload: { notification_type: 'teleport_ready', message: 'Claude Code is ready on your phone' },
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api is ready on your phone',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'a notification with no type and no message',
    event: 'Notification',
    payload: {},
    notify: 'normal',
    want: {
      kind: 'speak',
      text: 'api needs your attention',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'Stop: the first two sentences, text priority',
    event: 'Stop',
    payload: fixture('stop.json'),
    notify: 'normal',
    want: { kind: 'speak', text: STOP_TEXT, priority: 'text', chime: 'done', maxAgeMs: STOP_MAX_AGE_MS },
  },
  {
    name: 'Stop without a message (older Claude Code): "<project> is done"',
    event: 'Stop',
    payload: { stop_hook_active: false },
    notify: 'continuous',
    want: { kind: 'speak', text: 'api is done', priority: 'text', chime: 'done', maxAgeMs: STOP_MAX_AGE_MS },
  },
  {
    name: 'Stop whose message is only code: "<project> is done"',
    event: 'Stop',
    payload: { last_assistant_message: '```sh\nnpm test\n```' },
    notify: 'normal',
    want: { kind: 'speak', text: 'api is done', priority: 'text', chime: 'done', maxAgeMs: STOP_MAX_AGE_MS },
  },
  {
    name: 'Stop with stop_hook_active: silence',
    event: 'Stop',
    payload: fixture('stop-active.json'),
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'Stop with notify off: silence',
    event: 'Stop',
    payload: fixture('stop.json'),
    notify: 'off',
    want: { kind: 'none' },
  },
  {
    name: 'SubagentStop in normal mode: silence',
    event: 'SubagentStop',
    payload: fixture('subagent-stop.json'),
    notify: 'normal',
    want: { kind: 'none' },
  },
  {
    name: 'SubagentStop in continuous mode: the done chime',
    event: 'SubagentStop',
    payload: fixture('subagent-stop.json'),
    notify: 'continuous',
    want: { kind: 'chime', signal: 'done', priority: 'notification' },
  },
  {
    name: 'SubagentStop with stop_hook_active: silence',
    event: 'SubagentStop',
    payload: { stop_hook_active: true },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'SessionStart in normal mode: silence',
    event: 'SessionStart',
    payload: fixture('session-start.json'),
    notify: 'normal',
    want: { kind: 'none' },
  },
  {
    name: 'SessionStart in continuous mode: a short phrase',
    event: 'SessionStart',
    payload: fixture('session-start.json'),
    notify: 'continuous',
    want: {
      kind: 'speak',
      text: 'api session started',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'SessionStart after resume',
    event: 'SessionStart',
    payload: { source: 'resume' },
    notify: 'continuous',
    want: {
      kind: 'speak',
      text: 'api session resumed',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'SessionStart after a compaction: silence (PreCompact spoke)',
    event: 'SessionStart',
    payload: { source: 'compact' },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'SessionStart after /clear: silence (the user typed it)',
    event: 'SessionStart',
    payload: { source: 'clear' },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'SessionStart of a fork: "forked", not "started"',
    event: 'SessionStart',
    payload: fixture('session-start-fork.json'),
    notify: 'continuous',
    want: {
      kind: 'speak',
      text: 'api session forked',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'SessionStart from an unknown source: silence',
    event: 'SessionStart',
    payload: { source: 'teleport' },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  {
    name: 'SessionEnd in normal mode: silence',
    event: 'SessionEnd',
    payload: fixture('session-end.json'),
    notify: 'normal',
    want: { kind: 'none' },
  },
  {
    name: 'SessionEnd in continuous mode: the done chime',
    event: 'SessionEnd',
    payload: fixture('session-end.json'),
    notify: 'continuous',
    want: { kind: 'chime', signal: 'done', priority: 'notification' },
  },
  {
    name: 'PreCompact in normal mode: silence',
    event: 'PreCompact',
    payload: { trigger: 'auto' },
    notify: 'normal',
    want: { kind: 'none' },
  },
  {
    name: 'PreCompact in continuous mode',
    event: 'PreCompact',
    payload: { trigger: 'auto' },
    notify: 'continuous',
    want: {
      kind: 'speak',
      text: 'api is compacting context',
      priority: 'notification',
      chime: 'attention',
      maxAgeMs: NOTICE_MAX_AGE_MS,
    },
  },
  {
    name: 'an unknown event: silence',
    event: 'PreToolUse',
    payload: { tool_name: 'Bash' },
    notify: 'continuous',
    want: { kind: 'none' },
  },
  { name: 'an empty event name: silence', event: '', payload: {}, notify: 'continuous', want: { kind: 'none' } },
];

describe('decideHook', () => {
  for (const row of ROWS) {
    test(row.name, () => {
      const got = decide(row.event, row.payload, row.notify);
      if (row.want.kind === 'none') {
        assert.equal(got.kind, 'none');
        assert.ok(got.kind === 'none' && got.reason.length > 0, 'a silent action says why');
      } else {
        assert.deepEqual(got, row.want);
      }
    });
  }

  test('every fixture decides without throwing, in every mode', () => {
    for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json'))) {
      const payload = fixture(file);
      for (const notify of ['off', 'normal', 'continuous'] as const) {
        const action = decide(String(payload.hook_event_name), payload, notify);
        assert.ok(['speak', 'chime', 'none'].includes(action.kind), `${file} ${notify}`);
        if (notify === 'off') assert.equal(action.kind, 'none', `${file}: notify off is silent`);
      }
    }
  });

  test('fields of the wrong type are ignored, never thrown on', () => {
    const odd = {
      message: 42,
      notification_type: ['x'],
      stop_hook_active: 'yes',
      last_assistant_message: { a: 1 },
      source: null,
    } as HookPayload;
    for (const event of [
      'PermissionRequest',
      'Notification',
      'Stop',
      'StopFailure',
      'SubagentStop',
      'SessionStart',
      'SessionEnd',
      'PreCompact',
    ]) {
      assert.doesNotThrow(() => decide(event, odd, 'continuous'));
    }
    assert.deepEqual(decide('Stop', odd), {
      kind: 'speak',
      text: 'api is done',
      priority: 'text',
      chime: 'done',
      maxAgeMs: STOP_MAX_AGE_MS,
    });
  });
});

describe('phrases', () => {
  test('permission messages', () => {
    assert.equal(
      permissionText('api', 'Claude needs your permission to use Bash'),
      'api needs your permission to use Bash',
    );
    assert.equal(
      permissionText('api', 'Claude Code needs your permission to use WebFetch.'),
      'api needs your permission to use WebFetch',
    );
    assert.equal(permissionText('api', 'Claude needs your permission'), 'api needs your permission');
    assert.equal(
      permissionText('api', 'Allow edits to src/app.ts?'),
      'api needs your permission: Allow edits to src/app.ts?',
    );
    assert.equal(permissionText('api', ''), 'api needs your permission');
  });

  test('the tool of a permission message, and its spoken name', () => {
    assert.equal(permissionTool('Claude needs your permission to use Bash'), 'Bash');
    assert.equal(
      permissionTool('Claude needs your permission to use mcp__github__create_issue.'),
      'mcp__github__create_issue',
    );
    assert.equal(permissionTool('Claude needs your permission'), undefined);
    assert.equal(spokenToolName('Bash'), 'Bash');
    assert.equal(spokenToolName('mcp__github__create_issue'), 'create issue from github');
    assert.equal(spokenToolName('mcp__plugin_vox_vox__speak'), 'speak from vox');
  });

  test('failures in words', () => {
    assert.equal(failureText('shop', 'rate_limit'), 'shop: the request failed, rate limited');
    assert.equal(failureText('shop', 'authentication_failed'), 'shop: the request failed, authentication failed');
    assert.equal(
      failureText('shop', 'invalid_request'),
      'shop: the request failed, the API rejected the request as invalid',
    );
    assert.equal(failureText('shop', ''), 'shop: the request failed');
    assert.equal(failureText('shop', 'unknown'), 'shop: the request failed');
    assert.equal(
      failureText('shop', 'constructor'),
      'shop: the request failed',
      'a key of Object.prototype is no kind',
    );
  });

  test('every StopFailure kind of Claude Code 2.1.332 has words of its own, but unknown', () => {
    // The enum of its StopFailure hook schema (strings on the 2.1.332 binary).
    const kinds = [
      'authentication_failed',
      'oauth_org_not_allowed',
      'account_on_hold',
      'verification_required',
      'billing_error',
      'rate_limit',
      'overloaded',
      'invalid_request',
      'model_not_found',
      'server_error',
      'max_output_tokens',
      'cloud_credential_error',
    ];
    assert.deepEqual(
      kinds.filter((k) => !Object.hasOwn(FAILURE_WORDS, k)),
      [],
    );
    const texts = kinds.map((k) => failureText('api', k));
    assert.equal(new Set(texts).size, kinds.length, 'no two kinds share words');
    for (const t of texts) assert.notEqual(t, 'api: the request failed');
  });

  test('unattended: claude -p (sdk-cli) only', () => {
    assert.equal(unattended({ CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' }), true);
    for (const e of ['cli', 'sdk-ts', 'sdk-py', 'claude-vscode', ''])
      assert.equal(unattended({ CLAUDE_CODE_ENTRYPOINT: e }), false, e);
    assert.equal(unattended({}), false);
  });

  test('nobody to answer: permission and input prompts are silent unless unattendedPrompts; the rest is unchanged', () => {
    const ctx = { notify: 'normal' as const, projectName: 'api', unattended: true };
    const prompts: Array<[string, HookPayload]> = [
      ['PermissionRequest', fixture('permission-request.json')],
      ['Notification', fixture('notification-permission.json')],
      ['Notification', fixture('notification-elicitation.json')],
    ];
    for (const [event, payload] of prompts) {
      const quiet = decideHook(event, payload, ctx);
      assert.equal(quiet.kind, 'none', event);
      assert.match((quiet as { reason: string }).reason, /nobody can answer.*unattendedPrompts: true/);
      assert.deepEqual(
        decideHook(event, payload, { ...ctx, unattendedPrompts: true }),
        decideHook(event, payload, { ...ctx, unattended: false }),
        event,
      );
      assert.equal(decideHook(event, payload, { ...ctx, unattended: false }).kind, 'speak', event);
    }
    assert.equal(decideHook('Stop', fixture('stop.json'), ctx).kind, 'speak');
    assert.equal(decideHook('Notification', fixture('notification-idle.json'), ctx).kind, 'speak');
  });

  test("a permission_prompt after its session's PermissionRequest (askAnnounced) is silent; the request itself is not", () => {
    const ctx = { notify: 'normal' as const, projectName: 'api', askAnnounced: true };
    const quiet = decideHook('Notification', fixture('notification-permission.json'), ctx);
    assert.equal(quiet.kind, 'none');
    assert.match((quiet as { reason: string }).reason, /PermissionRequest announced this ask/);
    assert.equal(
      decideHook(
        'Notification',
        { notification_type: 'worker_permission_prompt', message: 'Claude needs your permission' },
        ctx,
      ).kind,
      'none',
    );
    assert.equal(decideHook('PermissionRequest', fixture('permission-request.json'), ctx).kind, 'speak');
    assert.equal(decideHook('Notification', fixture('notification-idle.json'), ctx).kind, 'speak');
  });

  test('every Notification type of Claude Code 2.1.332 has a policy of its own', () => {
    const types = [
      'permission_prompt',
      'idle_prompt',
      'auth_success',
      'elicitation_dialog',
      'agent_needs_input',
      'agent_completed',
      'elicitation_url_dialog',
      'worker_permission_prompt',
      'push_notification',
      'computer_use_enter',
      'computer_use_exit',
      'quota_auto_resume_fired',
      'quota_auto_resume_stale',
      'quota_auto_resume_disabled',
      'model_refusal_fallback',
      'auth_storage_failure',
      'plugin_notification',
      'elicitation_complete',
      'elicitation_response',
    ];
    assert.deepEqual(
      types.filter((t) => !Object.hasOwn(NOTIFICATION_POLICY, t)),
      [],
    );
  });

  test('PermissionRequest and the later permission_prompt make one duplicate key, with a window that covers the gap', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'vox-hook-key-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const config = await resolveConfig(dir);
    const session = 'api#9a1b2c';
    const first = hookDelivery(decide('PermissionRequest', fixture('permission-request.json')), config, session);
    const later = hookDelivery(decide('Notification', fixture('notification-permission.json')), config, session);
    assert.ok(first?.route === '/v1/speak' && later?.route === '/v1/speak');
    assert.equal(first.body.dedupKey, 'api#9a1b2c permission Bash');
    assert.equal(later.body.dedupKey, first.body.dedupKey);
    assert.ok((first.body.once ?? 0) >= PERMISSION_DEDUP_SECONDS);
    // Another session's request is its own event.
    const other = hookDelivery(decide('PermissionRequest', fixture('permission-request.json')), config, 'api#5e6f7a');
    assert.notEqual(other?.route === '/v1/speak' && other.body.dedupKey, first.body.dedupKey);
  });

  test('other notices', () => {
    assert.equal(noticeText('shop', 'Claude is waiting for your input'), 'shop is waiting for your input');
    assert.equal(noticeText('shop', 'MCP server asks for a value'), 'shop: MCP server asks for a value');
    assert.equal(noticeText('shop', ''), 'shop needs your attention');
  });
});

describe('summarize', () => {
  test('the first two sentences of prose', () => {
    assert.equal(summarize('One. Two! Three? Four.'), 'One. Two!');
    assert.equal(summarize('Only one sentence without a stop'), 'Only one sentence without a stop.');
  });

  test('code, headings and tables are skipped; list items count as sentences', () => {
    const msg =
      '## Summary\n\n```ts\nconst a = 1. b;\n```\n\n| a | b |\n|---|---|\n\n- Added the refund tests\n- Fixed rounding\n- Bumped the version';
    assert.equal(summarize(msg), 'Added the refund tests. Fixed rounding.');
  });

  test('abbreviations, versions and file names do not end a sentence', () => {
    assert.equal(
      summarize('Updated index.ts, e.g. the router, to v1.2 today. Then ran the tests. Done.'),
      'Updated index.ts, e.g. the router, to v1.2 today. Then ran the tests.',
    );
  });

  test('a paragraph that wraps over lines is one block', () => {
    assert.equal(
      summarize('I changed the\nparser and the lexer.\nThe tests pass.'),
      'I changed the parser and the lexer. The tests pass.',
    );
  });

  test(`never longer than ${SUMMARY_MAX_CHARS} characters`, () => {
    const long = `${'word '.repeat(80).trim()}. Second sentence.`;
    const s = summarize(long);
    assert.ok(s.length <= SUMMARY_MAX_CHARS, `${s.length} chars`);
    assert.ok(s.endsWith('…'));
    assert.ok(!s.includes('Second'));
    // A second sentence that would pass the limit is left out, not clipped.
    const two = `${'a'.repeat(150)}. ${'b'.repeat(100)}.`;
    assert.equal(summarize(two), `${'a'.repeat(150)}.`);
  });

  test('a message with no prose gives nothing', () => {
    assert.equal(summarize(''), '');
    assert.equal(summarize('```\ncode\n```'), '');
    assert.equal(summarize('# Title only'), '');
  });
});

describe('vox hook (in process)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vox-hook-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  async function runHook(
    argv: string[],
    stdin: PassThrough,
    cwd = tmp,
  ): Promise<{ code: number; out: string; err: string }> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += d));
    stderr.on('data', (d) => (err += d));
    const code = await run({
      argv,
      env: { VOX_NO_AUTOSTART: '1', VOX_HOME: join(tmp, 'home') },
      cwd,
      stdin,
      stdout,
      stderr,
    });
    return { code, out, err };
  }

  test('a payload without newline or EOF is read as soon as it is complete', async () => {
    const stdin = new PassThrough();
    const payload = { ...fixture('notification-permission.json'), cwd: join(tmp, 'api') };
    stdin.write(JSON.stringify(payload));
    // stdin stays open: never ended.
    const r = await runHook(['Notification', '--dry-run'], stdin);
    assert.equal(r.code, 0);
    const sent = JSON.parse(r.out);
    assert.equal(sent.route, '/v1/speak');
    assert.equal(sent.body.text, 'api needs your permission to use Bash');
    assert.equal(sent.body.priority, 'important');
    assert.equal(sent.body.maxAgeMs, PERMISSION_MAX_AGE_MS);
    assert.equal(sent.body.session, 'api#9a1b2c');
    assert.equal(sent.body.dedupKey, 'api#9a1b2c permission Bash');
    assert.equal(sent.body.once, PERMISSION_DEDUP_SECONDS);
  });

  test('a writer that trickles forever is cut off, and nothing is said', async () => {
    const stdin = new PassThrough();
    stdin.write('{"hook_event_name": "Stop", ');
    const timer = setInterval(() => stdin.write(' '), 100);
    try {
      const r = await runHook(['Stop'], stdin);
      assert.equal(r.code, 0);
      assert.equal(r.out, '');
      assert.match(r.err, /^vox hook: the payload on stdin is not a JSON object/);
    } finally {
      clearInterval(timer);
    }
  });

  test('muted projects send a chime; unreachable voxd is one stderr line, exit 0', async () => {
    const dir = join(tmp, 'muted');
    mkdirSync(join(dir, '.vox'), { recursive: true });
    writeFileSync(join(dir, '.vox', 'config.md'), '---\nspeak: false\n---\n');
    const stdin = new PassThrough();
    stdin.end(JSON.stringify({ ...fixture('stop.json'), cwd: dir }));
    const dry = await runHook(['Stop', '--dry-run'], stdin);
    assert.deepEqual(JSON.parse(dry.out).body, {
      signal: 'done',
      session: 'muted#3c07f0',
      priority: 'text',
      volume: 0.5,
    });
    const again = new PassThrough();
    again.end(JSON.stringify({ ...fixture('stop.json'), cwd: dir }));
    const real = await runHook(['Stop'], again);
    assert.equal(real.code, 0);
    assert.equal(real.out, '');
    assert.match(real.err, /^vox hook: .*VOX_NO_AUTOSTART=1/);
    assert.equal(real.err.trim().split('\n').length, 1);
  });

  test('--help prints the usage; the event may come from the payload alone', async () => {
    const help = await runHook(['--help'], new PassThrough());
    assert.match(help.out, /^Usage: vox hook EVENT/);
    const stdin = new PassThrough();
    stdin.end(JSON.stringify({ ...fixture('notification-idle.json'), cwd: join(tmp, 'api') }));
    const r = await runHook(['--dry-run'], stdin);
    assert.equal(JSON.parse(r.out).body.text, 'api is waiting for your input');
  });

  test('without a config, the project is the repository directory above cwd', async () => {
    const repo = join(tmp, 'shop');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'src', 'routes'), { recursive: true });
    const cwd = join(repo, 'src', 'routes');
    assert.equal((await resolveConfig(cwd)).projectName, 'shop');
    const loose = join(tmp, 'loose', 'dir');
    mkdirSync(loose, { recursive: true });
    assert.equal((await resolveConfig(loose)).projectName, 'dir');
  });
});
