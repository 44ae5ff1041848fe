import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { CODE_OMITTED, cleanForSpeech, DEFAULT_MAX_CHARS, stripTags } from '../../src/text/cleanup.js';

/** The repository's test inputs (test/fixtures/README.md). */
const FIXTURES = new URL('../../../../test/fixtures/', import.meta.url);

function fixture(path: string): string {
  return readFileSync(new URL(path, FIXTURES), 'utf8');
}

const stopMessage = (JSON.parse(fixture('hooks/stop.json')) as { last_assistant_message: string })
  .last_assistant_message;

const walls = fixture('biff-walls.txt')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));

interface Case {
  name: string;
  input: string;
  expected: string;
  keepTags?: boolean;
}

const cases: Case[] = [
  // --- Stop hook final messages -------------------------------------------------------------
  {
    name: 'stop.json last_assistant_message (code fence, PR link, test count)',
    input: stopMessage,
    expected:
      'I split the checkout module into three files, added tests for the refund path, and fixed the rounding bug. ' +
      'All 47 tests pass. Code omitted. See link to github.com for details.',
  },
  {
    name: 'summary with heading, bullets, inline code paths and a SHA',
    input: [
      '## Summary',
      '',
      '- Split `src/checkout/index.ts` into three files',
      '- Added **12 tests** for `/home/dev/shop/src/checkout/refund.ts:42`',
      '- Fixed the rounding bug ✅',
      '',
      'Commit `3f9a2b1c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a` on branch feature/refunds.',
    ].join('\n'),
    expected:
      'Summary. Split checkout/index.ts into three files. Added 12 tests for checkout/refund.ts line 42. ' +
      'Fixed the rounding bug. Commit 3f9a2b1 on branch feature/refunds.',
  },
  {
    name: 'numbered steps with nested bullets',
    input:
      '1. Ran the migration\n2. Updated the schema:\n   - added `refunded_at`\n   - dropped `legacy_id`\n3. All green',
    expected: 'Ran the migration. Updated the schema: added refunded_at. dropped legacy_id. All green',
  },
  {
    name: 'test results table',
    input: '| Suite | Passed | Failed |\n|---|---:|---:|\n| unit | 47 | 0 |\n| e2e | 5 | 1 |',
    expected: 'Suite, Passed, Failed. unit, 47, 0. e2e, 5, 1',
  },
  {
    name: 'emoji used as line markers become separate sentences',
    input: '✅ Tests pass (47/47)\n❌ Lint fails in 2 files\n🚀 Ready to ship once lint is fixed',
    expected: 'Tests pass (47/47). Lint fails in 2 files. Ready to ship once lint is fixed',
  },
  {
    name: 'a message that is only a code block',
    input: '```ts\nexport const round = (x: number) => Math.round(x * 100) / 100;\n```',
    expected: CODE_OMITTED,
  },
  {
    name: 'adjacent code blocks merge, even with only an emoji between them',
    input:
      'Run these:\n\n```bash\nnpm ci\n```\n\n```bash\nnpm test\n```\n🎉\n```\nnpm run build\n```\n\nThen open the PR.',
    expected: 'Run these: Code omitted. Then open the PR.',
  },
  {
    name: 'indented code block is not read',
    input: 'The fix was:\n\n    const total = round(sum);\n    return total;\n\nThat is all.',
    expected: 'The fix was: Code omitted. That is all.',
  },
  {
    name: 'code block inside a list item',
    input: '- Added a helper:\n  ```ts\n  const x = 1;\n  ```\n- Wired it in',
    expected: 'Added a helper: Code omitted. Wired it in',
  },
  {
    name: 'markdown link with real text reads its text',
    input: 'Opened [PR #12: refund rounding](https://github.com/acme/shop/pull/12) for review.',
    expected: 'Opened PR 12: refund rounding for review.',
  },
  {
    name: 'markdown link whose text is the URL',
    input: 'Docs: [https://docs.example.com/api/v2](https://docs.example.com/api/v2)',
    expected: 'Docs: link to docs.example.com',
  },
  {
    name: 'autolink and bare www link drop www.',
    input: 'See <https://www.npmjs.com/package/marked> or www.example.org/guide.',
    expected: 'See link to npmjs.com or link to example.org.',
  },
  {
    name: 'bare URL inside inline code and a bare host/path',
    input: 'CI is at `https://ci.acme.dev/builds/991` and the repo at github.com/acme/shop.',
    expected: 'CI is at link to ci.acme.dev and the repo at link to github.com.',
  },
  {
    name: 'localhost URL with a port',
    input: 'The server is up on http://localhost:3000/health.',
    expected: 'The server is up on link to localhost.',
  },
  {
    name: 'e-mail autolink reads the address',
    input: 'Ask kai@acme.com for access.',
    expected: 'Ask kai@acme.com for access.',
  },
  {
    name: 'emphasis, strong, strikethrough and block quote',
    input: '> **Note:** the _old_ ~~flaky~~ test is *fixed* now',
    expected: 'Note: the old flaky test is fixed now',
  },
  {
    name: 'task list checkboxes are not read',
    input: '- [x] Write tests\n- [x] Fix rounding\n- [ ] Update docs',
    expected: 'Write tests. Fix rounding. Update docs',
  },
  {
    name: 'array indices and non-tag brackets stay readable',
    input: 'Fixed the off-by-one: `items[i + 1]` was read past `a[0]`. [WIP] notes follow.',
    expected: 'Fixed the off-by-one: items[i + 1] was read past a[0]. WIP notes follow.',
  },
  {
    name: 'generic types in inline code and text',
    input: 'It now returns `Promise<Map<string, number>>` instead of Promise<void>.',
    expected: 'It now returns Promise Map string, number instead of Promise void.',
  },
  {
    name: 'UUID becomes "an id"',
    input: 'Session 3c07f08f-e544-47b9-898a-f169f651788c finished.',
    expected: 'Session an id finished.',
  },
  {
    name: 'short SHA and numbers are left alone, long SHA shortened',
    input: 'Reverted a1b2c3d and cherry-picked 9e8d7c6b5a4f3e2d1c0b (run 123456789012).',
    expected: 'Reverted a1b2c3d and cherry-picked 9e8d7c6 (run 123456789012).',
  },
  {
    name: 'home and relative paths, slashes that are not paths',
    input: 'Edited ~/.claude/settings.json and ./scripts/test.mjs; read/write access and/or 2024/01/15 unchanged.',
    expected: 'Edited .claude/settings.json and scripts/test.mjs; read/write access and/or 2024/01/15 unchanged.',
  },
  {
    name: 'deep relative path with a line number',
    input: 'The bug was in packages/voxd/src/text/cleanup.ts:118:7.',
    expected: 'The bug was in text/cleanup.ts line 118.',
  },
  {
    name: 'Windows path',
    input: 'Wrote C:\\Users\\dev\\shop\\out\\report.html',
    expected: 'Wrote out/report.html',
  },
  {
    name: 'issue numbers and C#',
    input: 'Closes #12 and #15; the C# client is untouched.',
    expected: 'Closes 12 and 15; the C# client is untouched.',
  },
  {
    name: 'emoji with skin tone, ZWJ sequence, flag and keycap',
    input: 'Great work 👍🏽 👩‍💻 🇳🇱 — step 1️⃣ done ✨',
    expected: 'Great work — step 1 done',
  },
  {
    name: 'text emoticons are removed',
    input: 'All green :D ship it ;) (finally :))',
    expected: 'All green ship it (finally)',
  },
  {
    name: 'HTML and SSML tags are stripped, entities decoded',
    input: '<speak>Build <break time="1s"/> passed</speak> &amp; deployed in &lt;5 minutes',
    expected: 'Build passed & deployed in <5 minutes',
  },
  {
    name: 'details/summary HTML block',
    input: '<details>\n<summary>Full log</summary>\n\n12 warnings, 0 errors\n</details>',
    expected: 'Full log. 12 warnings, 0 errors',
  },
  {
    name: 'dunder names, kwargs and snake_case in inline code',
    input: 'Renamed `__init__` to take `**kwargs` and kept `snake_case_name`.',
    expected: 'Renamed init to take kwargs and kept snake_case_name.',
  },
  {
    name: 'arrows read as "to"',
    input: 'Renamed `total` → `grandTotal`; flow is parse -> validate -> save.',
    expected: 'Renamed total to grandTotal; flow is parse to validate to save.',
  },
  {
    name: 'image reads its alt text',
    input: 'Screenshot: ![checkout page after the fix](docs/img/checkout.png)',
    expected: 'Screenshot: checkout page after the fix',
  },
  {
    name: 'wrapped prose joins, a new capitalised line is a new sentence',
    input: 'Tests: 47 passed, 0 failed\nCoverage went from 81% to 86% and\nIt is now above the gate',
    expected: 'Tests: 47 passed, 0 failed. Coverage went from 81% to 86% and It is now above the gate',
  },
  {
    name: 'horizontal rule and setext heading',
    input: 'Done\n====\n\nEverything merged.\n\n---\n\nNext: release notes',
    expected: 'Done. Everything merged. Next: release notes',
  },
  {
    name: 'code block at the end after a colon',
    input:
      'Here is the new helper:\n\n```ts\nexport function round(x: number) {\n  return Math.round(x * 100) / 100;\n}\n```',
    expected: 'Here is the new helper: Code omitted.',
  },
  {
    name: 'undefined reference link and an HTML comment',
    input: 'See [the notes][notes] <!-- TODO: link --> and a[0][1].',
    expected: 'See the notes and a[0][1].',
  },
  {
    name: 'bold line followed by a plain line',
    input: '**Tests: 47 passed, 0 failed**\nDuration 3.2s',
    expected: 'Tests: 47 passed, 0 failed. Duration 3.2s',
  },
  {
    name: 'only emoji and tags leaves nothing',
    input: '🎉🎉 [excited]',
    expected: '',
  },
  {
    name: 'whitespace collapsed and trimmed',
    input: '  \n\n  Lots   of\t\tspace\u00a0here.  \n\n\n  And more.  ',
    expected: 'Lots of space here. And more.',
  },
  {
    name: 'empty input',
    input: '',
    expected: '',
  },
  // --- Biff walls (mood tags) -----------------------------------------------------------------
  ...walls.map((wall, i): Case => ({
    name: `biff wall ${i + 1}`,
    input: wall,
    expected: [
      'Wall from kai: deploying to staging in 5 minutes, hold merges',
      'Wall from priya: main is green again',
      'Wall from github-actions: CI failed: test on feature/refunds — link to github.com',
      'Wall from sam: who broke the build??',
      'Wall from kai: freeze lifted!!',
    ][i]!,
  })),
  {
    name: 'biff wall with keepTags keeps the tags',
    input: 'Wall from kai: deploying to staging in 5 minutes, hold merges [alert] [serious]',
    keepTags: true,
    expected: 'Wall from kai: deploying to staging in 5 minutes, hold merges [alert] [serious]',
  },
  {
    name: 'keepTags: a period goes before trailing tags, not after them',
    input: 'Build failed on main [alert] [serious]\n\nRevert pushed [relieved]',
    keepTags: true,
    expected: 'Build failed on main. [alert] [serious] Revert pushed [relieved]',
  },
  {
    name: 'keepTags: tags inside the text stay, a[0] and [WIP] are still not tags',
    input: '[whispers] the cache at a[0] is stale [WIP]',
    keepTags: true,
    expected: '[whispers] the cache at a[0] is stale WIP',
  },
  {
    name: 'keepTags false: leading and multi-word tags go',
    input: '[excited] [laughs softly] Shipped v2.3.0!',
    expected: 'Shipped v2.3.0!',
  },
];

describe('cleanForSpeech', () => {
  it('has at least 30 table cases', () => {
    assert.ok(cases.length >= 30, `only ${cases.length} cases`);
    assert.equal(walls.length, 5, 'biff-walls.txt changed: update the expected walls');
  });

  for (const c of cases) {
    it(c.name, () => {
      assert.equal(cleanForSpeech(c.input, c.keepTags === undefined ? {} : { keepTags: c.keepTags }), c.expected);
    });
  }

  it('never leaves markup, emoji or line breaks in any case', () => {
    for (const c of cases) {
      const out = cleanForSpeech(c.input, { keepTags: c.keepTags ?? false });
      assert.doesNotMatch(out, /`|\*\*|__|~~|\]\(|<\/?[A-Za-z][^<>]*>|\p{Extended_Pictographic}|\n/u, c.name);
      assert.equal(out, out.trim(), c.name);
      if (!c.keepTags) assert.doesNotMatch(out, /(^|\s)\[[a-z]+( [a-z]+)*\]/, c.name);
    }
  });

  it('is idempotent on its own output', () => {
    for (const c of cases) {
      const once = cleanForSpeech(c.input, { keepTags: c.keepTags ?? false });
      assert.equal(cleanForSpeech(once, { keepTags: c.keepTags ?? false }), once, c.name);
    }
  });
});

describe('cleanForSpeech maxChars', () => {
  const summary =
    'I split the checkout module into three files. Added tests for the refund path. Fixed the rounding bug. All 47 tests pass.';

  it(`defaults to ${DEFAULT_MAX_CHARS} characters, cut at a sentence`, () => {
    const sentence = 'The refund path now rounds to cents. ';
    const long = sentence.repeat(100);
    const out = cleanForSpeech(long);
    assert.ok(out.length <= DEFAULT_MAX_CHARS);
    assert.ok(out.length > DEFAULT_MAX_CHARS - sentence.length, 'kept as many whole sentences as fit');
    assert.ok(out.endsWith('cents.'));
  });

  it('keeps whole sentences that fit', () => {
    assert.equal(
      cleanForSpeech(summary, { maxChars: 80 }),
      'I split the checkout module into three files. Added tests for the refund path.',
    );
  });

  it('a sentence ending exactly at the limit is kept', () => {
    const first = 'I split the checkout module into three files.';
    assert.equal(cleanForSpeech(summary, { maxChars: first.length }), first);
  });

  it('cuts a too-long first sentence at a word boundary, never mid-word', () => {
    assert.equal(cleanForSpeech(summary, { maxChars: 20 }), 'I split the checkout');
    assert.equal(cleanForSpeech(summary, { maxChars: 19 }), 'I split the');
  });

  it('does not leave a dangling comma after a word cut', () => {
    assert.equal(
      cleanForSpeech('Fixed refunds, carts, and coupons in one pass', { maxChars: 22 }),
      'Fixed refunds, carts',
    );
  });

  it('abbreviations are not sentence ends', () => {
    assert.equal(
      cleanForSpeech('Use a helper, e.g. the one in cents.ts. Then ship.', { maxChars: 44 }),
      'Use a helper, e.g. the one in cents.ts.',
    );
  });

  it('counts the cleaned text, not the markdown', () => {
    const input = '```ts\n' + 'x'.repeat(5000) + '\n```\nAll done.';
    assert.equal(cleanForSpeech(input, { maxChars: 30 }), 'Code omitted. All done.');
  });

  it('one word longer than the limit is cut hard (nothing better exists)', () => {
    assert.equal(cleanForSpeech('Supercalifragilistic', { maxChars: 5 }), 'Super');
  });

  it('rejects a limit below one character', () => {
    assert.throws(() => cleanForSpeech('hi', { maxChars: 0 }), RangeError);
    assert.throws(() => cleanForSpeech('hi', { maxChars: Number.NaN }), RangeError);
  });

  it('Infinity means no limit', () => {
    const long = 'Word. '.repeat(1000).trim();
    assert.equal(cleanForSpeech(long, { maxChars: Infinity }), long);
  });
});

describe('cleanForSpeech on hostile input', () => {
  // Each would overflow the stack if a step recursed per level. Whether the
  // work is linear is checked by growth, not by time, in linear.test.ts.
  const hostile: Array<[name: string, input: string]> = [
    ['emphasis delimiters', '*_a'.repeat(70_000)],
    ['underscores', '_a'.repeat(100_000)],
    ['a run of hashes', '#'.repeat(200_000)],
    ['a run of spaces between words', `a${' '.repeat(200_000)}b`],
    ['nested quotes', '> '.repeat(100_000)],
    ['nested lists', '- '.repeat(100_000)],
    ['many tags', '[alert] '.repeat(25_000) + 'go'],
    ['many emoji', '🎉'.repeat(100_000)],
    [
      'a long agent message',
      `${stopMessage}

`.repeat(2_000),
    ],
  ];
  for (const [name, input] of hostile) {
    it(name, () => {
      for (const keepTags of [false, true]) {
        const out = cleanForSpeech(input, { keepTags });
        assert.ok(out.length <= DEFAULT_MAX_CHARS);
        assert.doesNotMatch(out, /`|\*\*|__|>|\p{Extended_Pictographic}/u);
      }
    });
  }

  it('stripTags on a long run of spaces', () => {
    assert.equal(stripTags(`go${' '.repeat(200_000)}[alert]`), 'go');
  });
});

describe('stripTags', () => {
  const table: Array<[input: string, expected: string]> = [
    [
      'Wall from kai: deploying to staging in 5 minutes, hold merges [alert] [serious]',
      'Wall from kai: deploying to staging in 5 minutes, hold merges',
    ],
    ['main is green again :D [excited] [cheerful]', 'main is green again :D'],
    ['[whispers] it is done', 'it is done'],
    ['who broke it [curious], and why [sighs heavily]?', 'who broke it, and why?'],
    ['keep a[0], arr[i] and [Draft] and [1, 2]', 'keep a[0], arr[i] and [Draft] and [1, 2]'],
    ['keep links [docs](https://x.io) and [ref][1]', 'keep links [docs](https://x.io) and [ref][1]'],
    ['keep **markdown** and\n\nparagraphs', 'keep **markdown** and\n\nparagraphs'],
    ['[this is far too long to be a mood tag]', '[this is far too long to be a mood tag]'],
    ['[extraordinarily enthusiastically overjoyed]', '[extraordinarily enthusiastically overjoyed]'],
    ['', ''],
  ];
  for (const [input, expected] of table) {
    it(JSON.stringify(input), () => {
      assert.equal(stripTags(input), expected);
    });
  }
});
