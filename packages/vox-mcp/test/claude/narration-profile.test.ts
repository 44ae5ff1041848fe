/**
 * The declaration of how a session narrates (claude/narration-profile.ts), which voxd applies to the vox mod's
 * batches: what the project's config says, the same rule as vox mcp's own batches (`narrates`), and sent again only
 * at a prompt or when it changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { narrates } from '../../src/claude/narration.js';
import {
  forgetDeclared,
  invalidConfig,
  narrationProfile,
  notNarrating,
  toDeclare,
} from '../../src/claude/narration-profile.js';
import { DEFAULTS, type ConfigValues, type ResolvedConfig } from '../../src/project/config-schema.js';

function config(values: Partial<ConfigValues>, pronunciations: ResolvedConfig['pronunciations'] = []): ResolvedConfig {
  return {
    projectDir: '/p/api',
    projectName: 'api',
    values: { ...DEFAULTS, narrate: 'stream', ...values } as ConfigValues,
    sources: {} as ResolvedConfig['sources'],
    pronunciations,
  };
}

test("a project that does not narrate says why, in its config's words; the rule is vox mcp's own", () => {
  const cases: Array<[Partial<ConfigValues>, string | undefined]> = [
    [{}, undefined],
    [{ narrate: 'summary' }, 'narrate: summary'],
    [{ narrate: 'off' }, 'narrate: off'],
    [{ notify: 'quiet' }, 'notify: quiet'],
    [{ notify: 'off' }, 'notify: off'],
    [{ speak: false }, 'speak: false'],
    [{ notify: 'chatty' }, undefined],
  ];
  for (const [values, why] of cases) {
    assert.equal(notNarrating(config(values)), why, JSON.stringify(values));
    assert.equal(narrates(config(values)), why === undefined);
    const p = narrationProfile(config(values), 'api#1');
    assert.deepEqual(p.narrates, why === undefined);
    if (why) assert.deepEqual(p, { session: 'api#1', narrates: false, reason: why }, 'nothing else when it does not');
  }
});

test('a narrating profile carries the voice, label and pronunciations, as a batch of vox mcp would', () => {
  assert.deepEqual(narrationProfile(config({}), 'api#1'), { session: 'api#1', narrates: true, rate: 175, volume: 1 });
  assert.deepEqual(
    narrationProfile(
      config({ voice: 'en-us+f3', rate: 190, volume: 0.7, engine: 'espeak', model: 'm', announce: true }, [
        { word: 'kubectl', say: 'cube control' },
      ]),
      'api#1',
    ),
    {
      session: 'api#1',
      narrates: true,
      rate: 190,
      volume: 0.7,
      voice: 'en-us+f3',
      engine: 'espeak',
      model: 'm',
      announce: 'api',
      pronunciations: [{ word: 'kubectl', say: 'cube control' }],
    },
  );
  assert.equal(narrationProfile(config({ announce: 'Shop' }), 'api#1').announce, 'Shop');
});

test('declared at every prompt, and otherwise only when it changed', () => {
  forgetDeclared();
  const on = narrationProfile(config({}), 'api#1');
  const off = narrationProfile(config({ narrate: 'summary' }), 'api#1');
  assert.equal(toDeclare(on, false), true, 'first seen');
  assert.equal(toDeclare(on, false), false, 'unchanged');
  assert.equal(toDeclare(on, true), true, 'a prompt declares again (voxd may have restarted)');
  assert.equal(toDeclare(off, false), true, 'the config changed');
  assert.equal(toDeclare(narrationProfile(config({}), 'api#2'), false), true, 'another label is its own');
  assert.equal(toDeclare(off, false), false);
  forgetDeclared();
});

test('an invalid config declares every label declared narrating not narrating, once', () => {
  forgetDeclared();
  toDeclare(narrationProfile(config({}), 'api#1'), true);
  toDeclare(narrationProfile(config({ narrate: 'summary' }), 'web#2'), true);
  assert.deepEqual(invalidConfig(), [{ session: 'api#1', narrates: false, reason: 'the .vox/config.md is invalid' }]);
  assert.deepEqual(invalidConfig(), [], 'once');
  assert.equal(toDeclare(narrationProfile(config({}), 'api#1'), false), true, 'fixed: declared narrating again');
  forgetDeclared();
});
