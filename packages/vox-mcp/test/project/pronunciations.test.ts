import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { resolveConfig } from '../../src/project/config.js';
import { applyPronunciations } from '@vox/protocol';
import { parsePronunciations, type Pronunciation } from '../../src/project/pronunciations.js';

describe('parsePronunciations', () => {
  test('reads the table under the heading, with backticks and escaped bars', () => {
    const body = [
      '# Notes', // 1
      '',
      '| not | this |', // a table outside the section
      '|---|---|',
      '| nope | no |',
      '',
      '## Pronunciations',
      '',
      'Some prose.',
      '',
      '| word | say as |',
      '| :--- | ---: |',
      '| kubectl | cube control |',
      '| `k8s` | kubernetes |',
      '| a\\|b | a or b |',
      '|pull request|P R|',
      '',
      '## Other',
      '| after | section |',
      '|---|---|',
      '| gone | x |',
    ].join('\n');
    const { entries, problems } = parsePronunciations(body);
    assert.deepEqual(problems, []);
    assert.deepEqual(entries, [
      { word: 'kubectl', say: 'cube control' },
      { word: 'k8s', say: 'kubernetes' },
      { word: 'a|b', say: 'a or b' },
      { word: 'pull request', say: 'P R' },
    ]);
  });

  test('any heading level and case; a deeper heading stays in the section', () => {
    const body =
      '### pronunciations\n| w | s |\n|-|-|\n| a | b |\n#### More\n| w | s |\n|-|-|\n| c | d |\n## Out\n| w | s |\n|-|-|\n| e | f |\n';
    assert.deepEqual(
      parsePronunciations(body).entries.map((e) => e.word),
      ['a', 'c'],
    );
  });

  test('tables inside fenced code blocks are ignored', () => {
    const body =
      '## Pronunciations\n```markdown\n| w | s |\n|-|-|\n| fenced | no |\n## Fake heading\n```\n| w | s |\n|-|-|\n| real | yes |\n';
    assert.deepEqual(parsePronunciations(body).entries, [{ word: 'real', say: 'yes' }]);
  });

  test('malformed rows are problems with their line in the file', () => {
    const body = [
      '## Pronunciations', // 20
      '| word | say as |', // 21
      '| --- | --- |', // 22
      '| one |', // 23
      '| | empty |', // 24
      '| blank | |', // 25
      '| Dup | a |', // 26
      '| dup | b |', // 27
      '| a | b | c |', // 28
      '',
      '| w | s |', // 30
      '| not a delimiter | x |', // 31
    ].join('\n');
    const { entries, problems } = parsePronunciations(body, 20);
    assert.deepEqual(entries, [{ word: 'Dup', say: 'a' }]);
    assert.deepEqual(
      problems.map((p) => p.line),
      [23, 24, 25, 27, 28, 31],
    );
    assert.match(problems[3]!.message, /listed twice \(lines 26 and 27\)/);
  });

  test('no section, no entries', () => {
    assert.deepEqual(parsePronunciations('# Just notes\n| a | b |\n|-|-|\n| x | y |\n'), { entries: [], problems: [] });
  });
});

describe('applyPronunciations', () => {
  const table: Pronunciation[] = [
    { word: 'kubectl', say: 'cube control' },
    { word: 'kubectl apply', say: 'cube control apply, please' },
    { word: 'nginx', say: 'engine x' },
    { word: 'C++', say: 'C plus plus' },
    { word: 'k8s', say: 'kubernetes' },
    { word: 'vox', say: 'vocks' },
    { word: 'vocks', say: 'WRONG' },
    { word: 'pull request', say: 'P R' },
    { word: 'a.b', say: 'a dot b' },
  ];

  test('whole words, any case', () => {
    assert.equal(
      applyPronunciations('Run KUBECTL get pods; Kubectl too.', table),
      'Run cube control get pods; cube control too.',
    );
    assert.equal(applyPronunciations('kubectls and xkubectl stay', table), 'kubectls and xkubectl stay');
    assert.equal(applyPronunciations('nginx_conf, nginx-conf', table), 'nginx_conf, engine x-conf');
  });

  test('longest first, and replacements are not replaced again', () => {
    assert.equal(applyPronunciations('kubectl apply -f x', table), 'cube control apply, please -f x');
    assert.equal(applyPronunciations('vox speaks', table), 'vocks speaks');
  });

  test('words with symbols and digits', () => {
    assert.equal(applyPronunciations('I like C++ and k8s.', table), 'I like C plus plus and kubernetes.');
    assert.equal(applyPronunciations('a.b but not aXb', table), 'a dot b but not aXb');
  });

  test('phrases match across spacing and line breaks', () => {
    assert.equal(applyPronunciations('open a Pull\n  Request now', table), 'open a P R now');
  });

  test('an empty table or text changes nothing', () => {
    assert.equal(applyPronunciations('kubectl', []), 'kubectl');
    assert.equal(applyPronunciations('', table), '');
  });

  test('non-Latin words are whole words too', () => {
    const t = [{ word: 'größe', say: 'size' }];
    assert.equal(applyPronunciations('Die Größe, nicht Größenwahn', t), 'Die size, nicht Größenwahn');
  });
});

test('resolveConfig returns the table of .vox/config.md, ready for applyPronunciations', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vox-'));
  try {
    mkdirSync(join(dir, '.vox'));
    writeFileSync(
      join(dir, '.vox', 'config.md'),
      '---\nrate: 200\n---\n# Notes\n\n## Pronunciations\n\n| word | say as |\n| --- | --- |\n| kubectl | cube control |\n',
    );
    const c = await resolveConfig(dir);
    assert.deepEqual(c.pronunciations, [{ word: 'kubectl', say: 'cube control' }]);
    assert.equal(applyPronunciations('kubectl rollout', c.pronunciations), 'cube control rollout');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
