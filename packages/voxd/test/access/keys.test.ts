import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeys, parseKeysFile } from '../../src/access/keys.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function home(content?: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'vox-keys-'));
  dirs.push(dir);
  if (content !== undefined) {
    writeFileSync(join(dir, 'keys.env'), content);
    chmodSync(join(dir, 'keys.env'), mode);
  }
  return dir;
}

test('keys come from keys.env', () => {
  const keys = createKeys({ env: {}, home: home('OPENAI_API_KEY=sk-from-file\nELEVENLABS_API_KEY=el-file\n') });
  assert.equal(keys.get('OPENAI_API_KEY'), 'sk-from-file');
  assert.equal(keys.get('ELEVENLABS_API_KEY'), 'el-file');
  assert.equal(keys.source('OPENAI_API_KEY'), 'file');
  assert.deepEqual(keys.warnings(), []);
});

test('the environment wins over the file', () => {
  const keys = createKeys({ env: { OPENAI_API_KEY: 'sk-from-env' }, home: home('OPENAI_API_KEY=sk-from-file\n') });
  assert.equal(keys.get('OPENAI_API_KEY'), 'sk-from-env');
  assert.equal(keys.source('OPENAI_API_KEY'), 'env');
});

test('an empty environment variable does not hide the file', () => {
  const keys = createKeys({ env: { OPENAI_API_KEY: '' }, home: home('OPENAI_API_KEY=sk-from-file\n') });
  assert.equal(keys.get('OPENAI_API_KEY'), 'sk-from-file');
});

test('no file and no variable: undefined, no warnings', () => {
  const keys = createKeys({ env: {}, home: home() });
  assert.equal(keys.get('OPENAI_API_KEY'), undefined);
  assert.equal(keys.source('OPENAI_API_KEY'), undefined);
  assert.deepEqual(keys.warnings(), []);
});

test('dotenv syntax: export, quotes, comments, blank lines', () => {
  const { values, badLines } = parseKeysFile(
    [
      '# my keys',
      '',
      'export OPENAI_API_KEY="sk-quoted # not a comment"',
      "ELEVENLABS_API_KEY='single'",
      'OTHER = spaced   # trailing comment',
      'EMPTY=',
      '  INDENTED=yes',
    ].join('\r\n'),
  );
  assert.deepEqual(Object.fromEntries(values), {
    OPENAI_API_KEY: 'sk-quoted # not a comment',
    ELEVENLABS_API_KEY: 'single',
    OTHER: 'spaced',
    INDENTED: 'yes',
  });
  assert.deepEqual(badLines, []);
});

test(
  'a file readable by others gives a warning that holds no key',
  { skip: process.platform === 'win32' && 'no POSIX modes' },
  () => {
    const keys = createKeys({ env: {}, home: home('OPENAI_API_KEY=sk-secret-value\n', 0o644) });
    const w = keys.warnings();
    assert.equal(w.length, 1);
    assert.match(w[0]!, /mode 0644/);
    assert.match(w[0]!, /chmod 600/);
    assert.ok(!w[0]!.includes('sk-secret-value'));
    // The key is still usable: the warning is the remedy, not a lockout.
    assert.equal(keys.get('OPENAI_API_KEY'), 'sk-secret-value');
  },
);

test('a malformed line is reported by number, not content', () => {
  const keys = createKeys({ env: {}, home: home('OPENAI_API_KEY=sk-ok\nsk-pasted-without-a-name\n') });
  const w = keys.warnings();
  assert.equal(w.length, 1);
  assert.match(w[0]!, /keys\.env:2 /);
  assert.ok(!w[0]!.includes('sk-pasted-without-a-name'));
  assert.equal(keys.get('OPENAI_API_KEY'), 'sk-ok');
});

test('the file is re-read when it changes', () => {
  const dir = home('OPENAI_API_KEY=sk-one\n');
  const keys = createKeys({ env: {}, home: dir });
  assert.equal(keys.get('OPENAI_API_KEY'), 'sk-one');
  writeFileSync(join(dir, 'keys.env'), 'OPENAI_API_KEY=sk-two-longer\n');
  utimesSync(join(dir, 'keys.env'), new Date(), new Date(Date.now() + 5000));
  assert.equal(keys.get('OPENAI_API_KEY'), 'sk-two-longer');
  rmSync(join(dir, 'keys.env'));
  assert.equal(keys.get('OPENAI_API_KEY'), undefined);
});
