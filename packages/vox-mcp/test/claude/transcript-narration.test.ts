import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { ToldTexts } from '../../src/claude/told-texts.js';
import { assistantTexts, forgetTranscripts, transcriptPathOf } from '../../src/claude/transcript-narration.js';

const REAL = readFileSync(
  new URL('../../../../test/fixtures/transcripts/claude-2.1.332-narrated-session.jsonl', import.meta.url),
);
afterEach(() => forgetTranscripts());

test("the real transcript's assistant texts, and nothing of its other lines", () => {
  const lines = REAL.toString('utf8').split('\n').slice(0, -1);
  const texts = lines.flatMap((l) => assistantTexts(Buffer.from(l)));
  assert.equal(texts.length, 6);
  assert.match(texts[0]!.text, /^I looked at the failing build first\./);
  assert.equal(
    texts[1]!.text,
    'Short answer first.\nThe cache was stale, so I cleared it.\nThen the build passed.\nThat is all.\n',
  );
  assert.equal(texts[5]!.text.trim(), 'Understood, stopping there.');
  assert.equal(new Set(texts.map((t) => t.key)).size, 6, 'a key of its own each');
  for (const t of texts) assert.match(t.key, /^[A-Za-z0-9_.:-]{1,128}$/);
});

test('tool calls, thinking, a subagent and an API error are not narrated', () => {
  const line = (o: object) => Buffer.from(JSON.stringify(o));
  const msg = (content: object[], extra: object = {}) =>
    line({ type: 'assistant', uuid: 'u1', message: { id: 'msg_1', role: 'assistant', model: 'm', content }, ...extra });
  assert.deepEqual(assistantTexts(msg([{ type: 'tool_use', id: 't', name: 'Read', input: { text: 'x' } }])), []);
  assert.deepEqual(assistantTexts(msg([{ type: 'thinking', thinking: 'hmm "text"' }])), []);
  assert.deepEqual(assistantTexts(msg([{ type: 'text', text: 'sub' }], { isSidechain: true })), []);
  assert.deepEqual(
    assistantTexts(
      line({
        type: 'assistant',
        uuid: 'u',
        message: { role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'API Error' }] },
      }),
    ),
    [],
  );
  assert.deepEqual(
    assistantTexts(line({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'assistant' }] } })),
    [],
  );
  assert.deepEqual(assistantTexts(Buffer.from('{"type":"assistant","text" broken')), []);
  assert.deepEqual(
    assistantTexts(
      msg([
        { type: 'text', text: 'Hello.' },
        { type: 'tool_use', id: 't', name: 'Read', input: {} },
      ]),
    ).map((t) => t.text),
    ['Hello.'],
  );
});

test('only an absolute .jsonl path is read', () => {
  assert.equal(transcriptPathOf({ transcript_path: '/h/.claude/projects/p/s.jsonl' }), '/h/.claude/projects/p/s.jsonl');
  for (const p of ['rel/s.jsonl', '/etc/passwd', '/dev/zero', '', 3, '/a\0.jsonl'])
    assert.equal(transcriptPathOf({ transcript_path: p }), undefined);
});

test('told texts: what MessageDisplay gave is not told again from the transcript, and the reverse; once each; per turn', () => {
  const t = new ToldTexts();
  t.newTurn('s');
  assert.equal(t.display('s', 'd1', 'First part.\n'), true);
  assert.equal(t.display('s', 'd1', 'I will read a file.\n'), true, 'its later batch');
  assert.equal(t.transcript('s', 'k1', 'First part.\nI will read a file.\n'), false, 'MessageDisplay gave it');
  assert.equal(t.transcript('s', 'k2', 'Second part.'), true, 'MessageDisplay missed it');
  assert.equal(t.display('s', 'd2', 'Second part.'), false, 'the transcript told it first');
  assert.equal(t.display('s', 'd2', ' More of it.'), false, 'nor its later batches');
  assert.equal(
    t.transcript('s', 'k3', 'First part.\nI will read a file.\n'),
    true,
    'the same words written again are new',
  );
  assert.equal(t.unheard('s', 'Second part.'), false);
  assert.equal(t.unheard('s', 'Third part.'), true);
  t.newTurn('s');
  assert.equal(t.display('s', 'd3', 'Short answer.'), true);
  assert.equal(t.transcript('s', 'k4', 'Second part.'), true, 'an earlier turn does not count');
  assert.equal(t.transcript('other', 'k1', 'Short answer.'), true, 'nor another session');
});
