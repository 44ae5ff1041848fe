/** handle.ts: one hook event, the same steps for every entry; voxd is the entry's `send`, recorded here. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { handle, type HookCall } from '../../src/hooks/handle.js';
import { PermissionAsks } from '../../src/hooks/permission-asks.js';
import { DEFAULTS, type ResolvedConfig } from '../../src/project/config-schema.js';

const dir = mkdtempSync(join(tmpdir(), 'vox-handle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const config = (values: Partial<typeof DEFAULTS> = {}): ResolvedConfig =>
  ({
    projectDir: '/p',
    projectName: 'api',
    values: { ...DEFAULTS, ...values },
    sources: {},
    pronunciations: [],
  }) as unknown as ResolvedConfig;

function entry(over: Partial<HookCall> & { file: string }) {
  const sent: Array<{ route: string; body: Record<string, unknown> }> = [];
  const { file, ...rest } = over;
  const call = (event: string, payload: Record<string, unknown>, refuse?: string): Promise<unknown> =>
    handle({
      event,
      payload,
      config: config(),
      session: 'api#aaaaaa',
      env: {},
      // A new instance per event: as many processes as events, sharing only the file.
      asks: new PermissionAsks(undefined, file),
      voice: false,
      send: async (route, body) => {
        sent.push({ route, body: body as Record<string, unknown> });
        return refuse;
      },
      ...rest,
    });
  return { sent, call };
}

const REQUEST = { tool_name: 'Bash' };
const PROMPT = { notification_type: 'permission_prompt', message: 'Claude needs your permission' };

test('a PermissionRequest sent is remembered: its permission_prompt Notification, in another process, sends nothing', async () => {
  const { sent, call } = entry({ file: join(dir, 'once.json') });
  assert.deepEqual(await call('PermissionRequest', REQUEST), {
    kind: 'action',
    action: (await import('../../src/hooks/policy.js')).decideHook('PermissionRequest', REQUEST, {
      notify: 'normal',
      projectName: 'api',
    }),
    delivery: { route: sent[0]!.route, body: sent[0]!.body },
  });
  assert.equal(sent[0]!.body.text, 'api needs your permission to use Bash');
  const quiet = (await call('Notification', PROMPT)) as { action: { kind: string; reason: string } };
  assert.equal(quiet.action.kind, 'none');
  assert.match(quiet.action.reason, /PermissionRequest announced this ask/);
  assert.equal(sent.length, 1);
});

test('a request voxd refused, or a dry run, is not remembered: the Notification is heard', async () => {
  const refused = entry({ file: join(dir, 'refused.json') });
  const r = (await refused.call('PermissionRequest', REQUEST, 'voxd refused the PermissionRequest request')) as {
    refused?: string;
  };
  assert.equal(r.refused, 'voxd refused the PermissionRequest request');
  await refused.call('Notification', PROMPT);
  assert.equal(refused.sent.length, 2);

  const dry = entry({ file: join(dir, 'dry.json'), dryRun: true });
  const d = (await dry.call('PermissionRequest', REQUEST)) as { delivery?: { route: string } };
  assert.equal(d.delivery?.route, '/v1/speak');
  assert.equal(dry.sent.length, 0, 'a dry run sends nothing');
  const heard = entry({ file: join(dir, 'dry.json') });
  await heard.call('Notification', PROMPT);
  assert.equal(heard.sent.length, 1);
});

test("an entry's own request replaces the policy's; silence stays silence", async () => {
  const own = { route: '/v1/speak', body: { text: 'api wants to run npm test', session: 'api#aaaaaa' } };
  const e = entry({ file: join(dir, 'own.json'), deliver: () => own });
  await e.call('PermissionRequest', REQUEST);
  assert.deepEqual(e.sent, [own]);
  const off = entry({ file: join(dir, 'own.json'), deliver: () => own, config: config({ notify: 'off' }) });
  assert.equal(((await off.call('PermissionRequest', REQUEST)) as { action: { kind: string } }).action.kind, 'none');
  assert.equal(off.sent.length, 0);
});

test('approveByVoice asks by voice only where the entry can answer (voice: true)', async () => {
  // voice: false (another agent's command hook): announced as usual, never asked.
  const e = entry({ file: join(dir, 'voice.json'), config: config({ approveByVoice: true }) });
  const r = (await e.call('PermissionRequest', REQUEST)) as { kind: string };
  assert.equal(r.kind, 'action');
  assert.equal(e.sent.length, 1);
});
