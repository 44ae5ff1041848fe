/**
 * One truth for both paths: a text the vox mod sends (`source: mod`), made by voxd from what the session's
 * `vox mcp` declared (voxd's dispatch/narration-profiles.ts, from vox's claude/narration-profile.ts), is the batch
 * vox mcp itself sends for the same text from MessageDisplay (claude/narration.ts): the same words after the
 * announce label and pronunciations, the same voice, rate, volume, engine and model, for each kind of config.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NarrationRequest } from '@vox/protocol';
import { narrationDelivery } from '../../packages/vox-mcp/src/claude/narration.js';
import { narrationProfile } from '../../packages/vox-mcp/src/claude/narration-profile.js';
import { DEFAULTS, type ConfigValues, type ResolvedConfig } from '../../packages/vox-mcp/src/project/config-schema.js';
import { NarrationProfiles } from '../../packages/voxd/src/dispatch/narration-profiles.js';

const config = (values: Partial<ConfigValues>, pronunciations: ResolvedConfig['pronunciations'] = []) =>
  ({
    projectDir: '/p/shop',
    projectName: 'shop',
    values: { ...DEFAULTS, narrate: 'stream', ...values } as ConfigValues,
    sources: {} as ResolvedConfig['sources'],
    pronunciations,
  }) as ResolvedConfig;

const TABLE = [
  { word: 'kubectl', say: 'cube control' },
  { word: 'k8s', say: 'kubernetes' },
];
const CONFIGS: Array<[string, ResolvedConfig]> = [
  ['defaults', config({})],
  ['voice and rate', config({ voice: 'en-us+f3', rate: 220, volume: 0.4 })],
  ['engine and model', config({ engine: 'openai', model: 'tts-1' })],
  ['announce: true', config({ announce: true })],
  ['an announce label', config({ announce: 'Shop front' })],
  ['pronunciations', config({}, TABLE)],
  ['all of it', config({ voice: 'en-gb', rate: 150, announce: true, engine: 'espeak' }, TABLE)],
];
const TEXTS: Array<[number, boolean, string]> = [
  [0, false, 'I ran kubectl on the k8s cluster.\n'],
  [1, false, '```sh\nkubectl get pods\n```\n'],
  [2, true, 'That is all.'],
];

const core = ({ delta, voice, rate, volume, engine, model }: NarrationRequest) => ({
  delta,
  voice,
  rate,
  volume,
  engine,
  model,
});

test("a mod batch made by the declaration is vox mcp's own batch of the same text", () => {
  for (const [name, c] of CONFIGS) {
    const profiles = new NarrationProfiles();
    profiles.declare(narrationProfile(c, 'shop#5e55'));
    for (const [index, final, delta] of TEXTS) {
      const mcp = narrationDelivery(
        'MessageDisplay',
        { message_id: 'msg_1', index: String(index), final: String(final), delta },
        c,
        'shop#5e55',
      );
      assert.ok(mcp && mcp.route === '/v1/narration', name);
      const mod = profiles.modBatch({ session: 'shop#5e55', message: 'mod.t.0.0', index, final, delta, source: 'mod' });
      assert.ok('request' in mod, `${name}: ${JSON.stringify(mod)}`);
      assert.deepEqual(core(mod.request), core(mcp.body as NarrationRequest), `${name}, batch ${index}`);
    }
  }
});

test('where vox mcp sends nothing, the mod is not narrated either', () => {
  for (const values of [{ narrate: 'summary' }, { narrate: 'off' }, { notify: 'quiet' }, { speak: false }] as const) {
    const c = config(values);
    assert.equal(
      narrationDelivery('MessageDisplay', { message_id: 'm', index: '0', delta: 'Hi.\n' }, c, 's#1'),
      undefined,
    );
    const profiles = new NarrationProfiles();
    profiles.declare(narrationProfile(c, 's#1'));
    const mod = profiles.modBatch({ session: 's#1', message: 'mod.t.0.0', index: 0, final: true, delta: 'Hi.\n' });
    assert.ok('reason' in mod, JSON.stringify(values));
  }
});
