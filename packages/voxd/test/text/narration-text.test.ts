import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codePhrase, initialState, MAX_PARAGRAPH_CHARS, narrate, tablePhrase } from '../../src/text/narration-text.js';

/** Feed batches in order; the sentences each one gave out. */
function feed(batches: string[]): string[][] {
  const state = initialState();
  return batches.map((b, i) => narrate(state, b, i === batches.length - 1));
}

test('a sentence is given out once it is complete, even mid-paragraph; one still being written waits', () => {
  assert.deepEqual(
    feed([
      'I split the module into three files.\nNext I added tests for the refund path,',
      ' and fixed the rounding bug.\n',
    ]),
    [['I split the module into three files.'], ['Next I added tests for the refund path, and fixed the rounding bug.']],
  );
});

test('whole lines as Claude Code sends them: a line that ends a sentence is given out with its batch', () => {
  assert.deepEqual(feed(['The first line ends here.\n', 'The second goes on\n', 'over two lines.\n', '']), [
    ['The first line ends here.'],
    [],
    ['The second goes on over two lines.'],
    [],
  ]);
});

test('code blocks, diffs and tables are one phrase each, said where they end', () => {
  const out = feed([
    'Here is the fix:\n```ts\nconst a = 1;\n',
    'const b = 2;\n```\nAnd the diff:\n```diff\n- old\n+ new\n```\n',
    '| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n\nThat is all.\n',
  ]);
  assert.deepEqual(out, [
    ['Here is the fix:'],
    ['A code block of 2 lines.', 'And the diff:', 'A diff of 2 lines.'],
    ['A table of 2 rows.', 'That is all.'],
  ]);
  assert.doesNotMatch(out.flat().join(' '), /const|old|new|\|/);
});

test('a block still open at the end of the message is said at its end', () => {
  assert.deepEqual(feed(['Look:\n```\nline one\n', 'line two']), [['Look:'], ['A code block of 2 lines.']]);
  assert.deepEqual(feed(['| x |\n| - |\n| 1 |']), [['A table of one row.']]);
});

test('a fence closes only on its own kind and length', () => {
  assert.deepEqual(feed(['````md\n```\ninner\n```\n````\nAfter.\n']), [['A code block of 3 lines.', 'After.']]);
});

test('links and paths are shortened as in all speech', () => {
  const [out] = feed(['See https://github.com/acme/shop/pull/12 and packages/shop/src/totals.ts for it.\n']);
  assert.deepEqual(out, ['See link to github.com and src/totals.ts for it.']);
});

test('the state survives a round trip through JSON (the journal keeps it)', () => {
  const state = initialState();
  narrate(state, 'One sentence here.\nA second one starts', false);
  const copy = JSON.parse(JSON.stringify(state));
  assert.deepEqual(narrate(copy, ' and ends.\n```\ncode\n', false), ['A second one starts and ends.']);
  assert.deepEqual(narrate(copy, '```\n', true), ['A code block of one line.']);
});

test('a paragraph without end is closed at its cap, so each batch costs bounded work', () => {
  const state = initialState();
  const line = `${'word '.repeat(40)}\n`;
  let given = 0;
  for (let i = 0; i < 3 * Math.ceil(MAX_PARAGRAPH_CHARS / line.length); i++)
    given += narrate(state, line, false).length;
  assert.ok(given > 0, 'the open paragraph was given out at its cap');
  assert.ok(state.para.join('\n').length <= MAX_PARAGRAPH_CHARS + line.length);
});

test('a line that never ends, and never ends a sentence, is given out in pieces; nothing open grows past its bound', () => {
  const state = initialState();
  const words = 'and then it goes on ';
  const delta = words.repeat(Math.floor(65_536 / words.length));
  const given: string[] = [];
  for (let i = 0; i < 20; i++) {
    given.push(...narrate(state, delta, false));
    assert.ok(JSON.stringify(state).length <= 3 * MAX_PARAGRAPH_CHARS, `state of ${JSON.stringify(state).length}`);
  }
  const all = given.join(' ');
  assert.ok(all.length > 19 * delta.length * 0.95, `${all.length} characters given of ${20 * delta.length}`);
  assert.ok(
    given.every((p) => p.length <= 400),
    'each piece is speakable (a sentence at most 400 characters)',
  );
  assert.ok(
    given.every((p) => /^(and|then|it|goes|on)\b/i.test(p)),
    'pieces are cut at words',
  );
});

test('a code line that never ends is counted once, and what is kept of it stays bounded', () => {
  const state = initialState();
  narrate(state, '```ts\n', false);
  for (let i = 0; i < 20; i++) narrate(state, 'x'.repeat(65_536), false);
  assert.ok(state.carry.length <= MAX_PARAGRAPH_CHARS);
  assert.deepEqual(narrate(state, '\n```\nAfter it.\n', true), ['A code block of one line.', 'After it.']);
});

test('phrases', () => {
  assert.equal(codePhrase('', 1), 'A code block of one line.');
  assert.equal(codePhrase('patch', 7), 'A diff of 7 lines.');
  assert.equal(tablePhrase(1), 'A table.');
  assert.equal(tablePhrase(4), 'A table of 3 rows.');
});
