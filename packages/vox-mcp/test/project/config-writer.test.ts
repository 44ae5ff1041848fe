import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEFAULTS } from '../../src/project/config-schema.js';
import { ConfigError } from '../../src/project/config-validation.js';
import { resolveConfig } from '../../src/project/config.js';
import { TEMPLATE_URLS, readTemplate, setConfigValues } from '../../src/project/config-writer.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function project(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vox-'));
  dirs.push(dir);
  if (config !== undefined) {
    mkdirSync(join(dir, '.vox'));
    writeFileSync(join(dir, '.vox', 'config.md'), config);
  }
  return dir;
}

const fileOf = (dir: string) => join(dir, '.vox', 'config.md');
const read = (dir: string) => readFileSync(fileOf(dir), 'utf8');

async function rejects(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  assert.fail('did not throw');
}

const BODY =
  '\n# Shop\n\nSome *notes*.\n\n## Pronunciations\n\n| word | say as |\n| --- | --- |\n| kubectl | cube control |\n';

describe('setConfigValues', () => {
  test('the template is found from the source tree (and from dist, see commands-config.test.ts)', () => {
    assert.match(TEMPLATE_URLS[0]!.pathname, /\/config\/config\.md$/);
    assert.match(readTemplate(), /^---\n/);
  });

  test('creates .vox/config.md from the template when there is none', async () => {
    const dir = project();
    const c = await setConfigValues(dir, { rate: 250, announce: 'shop' });
    assert.equal(c.file, fileOf(dir));
    assert.equal(c.values.rate, 250);
    assert.equal(c.values.announce, 'shop');
    assert.equal(c.sources.rate, fileOf(dir));
    assert.equal(c.sources.volume, 'default');
    const text = read(dir);
    // Set on the template's commented line, beside its explanation.
    assert.match(text, /# Speaking rate in words per minute, 80 to 500\.\nrate: 250\n/);
    assert.match(text, /^announce: shop$/m);
    assert.match(text, /^# volume: 1$/m);
    assert.ok(text.endsWith(readTemplate().slice(readTemplate().indexOf('\n---\n'))), 'the body changed');
  });

  test('a round trip keeps the body, the other keys and the comments', async () => {
    const before =
      '---\n# Project voice.\nvoice: en-us   # the default voice\n\n# how fast\nrate: 200 # wpm\nnotify: normal\n---' +
      BODY;
    const dir = project(before);
    const c = await setConfigValues(dir, { rate: 260, speak: false });
    assert.equal(c.values.rate, 260);
    assert.equal(c.values.speak, false);
    assert.equal(c.values.voice, 'en-us');
    const text = read(dir);
    assert.ok(text.endsWith(`---${BODY}`), 'the body changed');
    assert.match(text, /^# Project voice\.$/m);
    assert.match(text, /^voice: en-us   # the default voice$/m);
    assert.match(text, /^# how fast\nrate: 260 # wpm$/m);
    assert.match(text, /^notify: normal$/m);
    assert.match(text, /^speak: false$/m);
    assert.deepEqual(c.pronunciations, [{ word: 'kubectl', say: 'cube control' }]);
  });

  test('null removes a key: its line is commented out again with the default', async () => {
    const dir = project('---\n# how fast\nrate: 300 # wpm\nvoice: de\n---\nbody\n');
    const c = await setConfigValues(dir, { rate: null, voice: null });
    assert.equal(c.values.rate, DEFAULTS.rate);
    assert.equal(c.sources.rate, 'default');
    assert.equal(c.values.voice, undefined);
    assert.equal(read(dir), `---\n# how fast\n# rate: ${DEFAULTS.rate} # wpm\n# voice: de\n---\nbody\n`);
    // And set again, on the same line.
    await setConfigValues(dir, { rate: 180 });
    assert.equal(read(dir), '---\n# how fast\nrate: 180 # wpm\n# voice: de\n---\nbody\n');
  });

  test('an invalid value or unknown key writes nothing and names the problem', async () => {
    const before = '---\nrate: 200\n---\nbody\n';
    const dir = project(before);
    const mtime = statSync(fileOf(dir)).mtimeMs;
    const err = await rejects(setConfigValues(dir, { rate: 9000, voise: 'x', engine: 'festival' } as never));
    assert.equal(err.code, 'VOX_ERR_CLIENT_CONFIG_INVALID');
    assert.equal(err.file, fileOf(dir));
    assert.deepEqual(
      err.problems.map((p) => p.key),
      ['rate', 'voise', 'engine'],
    );
    assert.match(err.message, /did you mean "voice"/);
    assert.match(err.message, /80 to 500/);
    assert.equal(read(dir), before);
    assert.equal(statSync(fileOf(dir)).mtimeMs, mtime);

    const fresh = project();
    await rejects(setConfigValues(fresh, { volume: 2 }));
    assert.equal(existsSync(fileOf(fresh)), false, 'a file was created for an invalid value');
  });

  test('refuses to edit a file with other problems, unless the edit fixes them', async () => {
    const dir = project('---\nrate: 9000\nvolume: 0.5\n---\n');
    const err = await rejects(setConfigValues(dir, { volume: 0.7 }));
    assert.equal(err.problems[0]!.key, 'rate');
    assert.equal(err.problems[0]!.line, 2);
    const c = await setConfigValues(dir, { rate: 300 });
    assert.equal(c.values.rate, 300);
    assert.equal(c.values.volume, 0.5);
  });

  test('edits the nearest config above a nested directory', async () => {
    const dir = project('---\nrate: 200\n---\n');
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    const c = await setConfigValues(join(dir, 'a', 'b'), { volume: 0.25 });
    assert.equal(c.file, fileOf(dir));
    assert.equal(existsSync(join(dir, 'a', 'b', '.vox')), false);
    assert.match(read(dir), /^volume: 0\.25$/m);
  });

  test('only the value changes: spacing and aligned comments stay as written', async () => {
    const dir = project(
      '---\nvoice:   en-us      # aligned\nvolume:  1          # aligned too\nmodel:             # to be set\n---\n',
    );
    await setConfigValues(dir, { volume: 0.5, model: 'tts-1' });
    assert.equal(
      read(dir),
      '---\nvoice:   en-us      # aligned\nvolume:  0.5          # aligned too\nmodel: tts-1             # to be set\n---\n',
    );
  });

  test('values that are not one line are edited through the Document API', async () => {
    const dir = project('---\n# the voice\nvoice: >-\n  en-us\nrate: 200 # wpm\n---\nbody\n');
    const c = await setConfigValues(dir, { voice: 'de', volume: 0.5 });
    assert.equal(c.values.voice, 'de');
    assert.equal(c.values.volume, 0.5);
    assert.equal(c.values.rate, 200);
    assert.match(read(dir), /^# the voice\nvoice: >-\n {2}de$/m); // its style is kept too
    assert.match(read(dir), /^rate: 200 # wpm$/m);
    assert.ok(read(dir).endsWith('---\nbody\n'));

    const flow = project('---\n{rate: 200, voice: en}\n---\n');
    const f = await setConfigValues(flow, { rate: 300, voice: null });
    assert.equal(f.values.rate, 300);
    assert.equal(f.sources.voice, 'default');
  });

  test('adds front matter to a file that has none, keeping the body', async () => {
    const dir = project('# Only notes\n');
    await setConfigValues(dir, { notify: 'off' });
    assert.equal(read(dir), '---\nnotify: off\n---\n# Only notes\n');
  });

  test('keeps CRLF line endings', async () => {
    const dir = project('---\r\n# c\r\nrate: 200\r\n---\r\nbody\r\n');
    await setConfigValues(dir, { rate: 210, dedup: 9 });
    assert.equal(read(dir), '---\r\n# c\r\nrate: 210\r\ndedup: 9\r\n---\r\nbody\r\n');
  });

  test('quotes what YAML would misread', async () => {
    const dir = project('---\n---\n');
    let c = await setConfigValues(dir, { announce: 'shop: api', voice: 'true' });
    assert.equal(c.values.announce, 'shop: api');
    assert.equal(c.values.voice, 'true');
    c = await setConfigValues(dir, { announce: true, voice: '175', model: '#1' });
    assert.equal(c.values.announce, true);
    assert.equal(c.values.voice, '175');
    assert.equal(c.values.model, '#1');
  });

  test('deleting the last key keeps the comments and prints no "{}"', async () => {
    const dir = project('---\n# keep me\nrate: {a: 1}\n---\nbody\n');
    await rejects(resolveConfig(dir));
    await setConfigValues(dir, { rate: null });
    assert.equal(read(dir), `---\n# keep me\n# rate: ${DEFAULTS.rate}\n---\nbody\n`);
  });

  test('never touches non-YAML front matter, and runs nothing', async () => {
    const dir = project();
    const marker = join(dir, 'PWNED');
    const before = `---js\nrequire('fs').writeFileSync(${JSON.stringify(marker)}, 'x')\n---\n`;
    mkdirSync(join(dir, '.vox'));
    writeFileSync(fileOf(dir), before);
    const err = await rejects(setConfigValues(dir, { rate: 200 }));
    assert.match(err.message, /only YAML front matter is allowed/);
    assert.equal(read(dir), before);
    assert.equal(existsSync(marker), false);
  });

  test('writes atomically: no temporary file is left behind, and the mode is kept', async () => {
    const dir = project('---\nrate: 200\n---\n');
    chmodSync(fileOf(dir), 0o600);
    await setConfigValues(dir, { rate: 201 });
    assert.deepEqual(readdirSync(join(dir, '.vox')), ['config.md']);
    assert.equal(statSync(fileOf(dir)).mode & 0o777, 0o600);
  });

  test('two sessions configuring at once both keep their keys', async () => {
    const dir = project('---\n---\n');
    await Promise.all([
      setConfigValues(dir, { rate: 222 }),
      setConfigValues(dir, { voice: 'en-gb' }),
      setConfigValues(dir, { dedup: 12 }),
    ]);
    const c = await resolveConfig(dir);
    assert.equal(c.values.rate, 222);
    assert.equal(c.values.voice, 'en-gb');
    assert.equal(c.values.dedup, 12);
  });
});
