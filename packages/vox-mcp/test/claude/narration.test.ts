import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NARRATION_MAX_DELTA_CHARS } from '@vox/protocol';
import { inOrder, narrationDelivery, narrates } from '../../src/claude/narration.js';
import { DEFAULTS, type ConfigValues, type ResolvedConfig } from '../../src/project/config-schema.js';

function config(values: Partial<ConfigValues>, pronunciations: ResolvedConfig['pronunciations'] = []): ResolvedConfig {
  const v = { ...DEFAULTS, narrate: 'stream', ...values } as ConfigValues;
  return {
    projectDir: '/p/api',
    projectName: 'api',
    values: v,
    sources: {} as ResolvedConfig['sources'],
    pronunciations,
  };
}
const batch = (delta: string, index = '0', final = 'false') => ({ message_id: 'msg-1', index, final, delta });

test('a batch becomes a /v1/narration request with the project voice, in order by index', () => {
  const d = narrationDelivery(
    'MessageDisplay',
    batch('Hello there.\n', '3', 'true'),
    config({ voice: 'en-us+f3', rate: 190 }),
    'api#1',
  );
  assert.deepEqual(d, {
    route: '/v1/narration',
    body: {
      session: 'api#1',
      message: 'msg-1',
      index: 3,
      final: true,
      delta: 'Hello there.\n',
      rate: 190,
      volume: 1,
      voice: 'en-us+f3',
    },
  });
  assert.deepEqual(narrationDelivery('UserPromptSubmit', {}, config({}), 'api#1'), {
    route: '/v1/narration/cut',
    body: { session: 'api#1' },
  });
  // After /clear: the labels the session had before are cut too (the current one named once).
  assert.deepEqual(
    narrationDelivery('UserPromptSubmit', {}, config({}), 'api#2', ['api#1', 'web#1', 'api#2', 'api#1']),
    {
      route: '/v1/narration/cut',
      body: { session: 'api#2', earlier: ['api#1', 'web#1'] },
    },
  );
});

test('only where the project narrates: summary, off, quiet and muted projects send nothing', () => {
  for (const v of [
    { narrate: 'summary' },
    { narrate: 'off' },
    { notify: 'quiet' },
    { notify: 'off' },
    { speak: false },
  ] as Array<Partial<ConfigValues>>) {
    assert.equal(narrates(config(v)), false, JSON.stringify(v));
    assert.equal(narrationDelivery('MessageDisplay', batch('Hi.\n'), config(v), 's'), undefined);
  }
  assert.equal(narrationDelivery('Stop', batch('Hi.\n'), config({}), 's'), undefined);
});

test('a payload that is not a batch sends nothing', () => {
  assert.equal(narrationDelivery('MessageDisplay', { ...batch('x'), message_id: 'a b' }, config({}), 's'), undefined);
  assert.equal(narrationDelivery('MessageDisplay', { ...batch('x'), index: '-1' }, config({}), 's'), undefined);
  assert.equal(narrationDelivery('MessageDisplay', { ...batch('x'), index: 'one' }, config({}), 's'), undefined);
});

test('the announce label is a line of its own before the first batch; pronunciations apply', () => {
  const c = config({ announce: true }, [{ word: 'npm', say: 'en pee em' }]);
  const first = narrationDelivery('MessageDisplay', batch('```ts\nnpm test\n```\n'), c, 's');
  assert.equal((first!.body as { delta: string }).delta.split('\n')[0], 'api:');
  assert.equal((first!.body as { delta: string }).delta.split('\n')[1], '```ts', 'the fence still opens its line');
  const later = narrationDelivery('MessageDisplay', batch('Run npm now.\n', '1'), c, 's');
  assert.match((later!.body as { delta: string }).delta, /^Run en pee em now\./);
});

test("a batch past voxd's limit is cut at a line that fits", () => {
  const line = `${'x'.repeat(99)}\n`;
  const d = narrationDelivery('MessageDisplay', batch(line.repeat(1000)), config({}), 's');
  const delta = (d!.body as { delta: string }).delta;
  assert.ok(delta.length <= NARRATION_MAX_DELTA_CHARS);
  assert.ok(delta.endsWith('\n') && delta.length % line.length === 0);
});

test('sends of one session run one after another, in order', async () => {
  const order: number[] = [];
  const slow = (n: number, ms: number) => () => new Promise<number>((r) => setTimeout(() => (order.push(n), r(n)), ms));
  const all = await Promise.all([inOrder('s', slow(1, 30)), inOrder('s', slow(2, 1)), inOrder('s', slow(3, 10))]);
  assert.deepEqual(all, [1, 2, 3]);
  assert.deepEqual(order, [1, 2, 3]);
});
