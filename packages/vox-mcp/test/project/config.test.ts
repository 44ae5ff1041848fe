import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parseConfig, parseFlatYaml, splitFrontMatter } from '../../src/project/config-parser.js';
import { ENGINES } from '@vox/protocol';
import { CONFIG_KEYS, DEFAULTS, NOTIFY_MODES, SCHEMA } from '../../src/project/config-schema.js';
import { ConfigError, closestKey } from '../../src/project/config-validation.js';
import { announceLabel, findConfigFile, resolveConfig } from '../../src/project/config.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temp project; `files` maps relative paths to contents. */
function project(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'vox-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function configError(cwd: string): Promise<ConfigError> {
  try {
    await resolveConfig(cwd);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail('resolveConfig did not throw');
}

describe('schema and defaults', () => {
  test('DEFAULTS is frozen, holds every key, and passes its own schema', () => {
    assert.ok(Object.isFrozen(DEFAULTS));
    assert.ok(Object.isFrozen(SCHEMA));
    assert.deepEqual(Object.keys(DEFAULTS).sort(), [...CONFIG_KEYS].sort());
    for (const key of CONFIG_KEYS) {
      const value = DEFAULTS[key];
      if (SCHEMA[key].optional) assert.equal(value, undefined, key);
      else assert.ok(SCHEMA[key].check(value), `default of ${key} fails its check`);
    }
  });

  test('the issue keys are all there', () => {
    for (const k of [
      'voice',
      'rate',
      'volume',
      'engine',
      'model',
      'speak',
      'notify',
      'dedup',
      'announce',
      'priority',
      'maxChars',
    ]) {
      assert.ok(CONFIG_KEYS.includes(k as never), k);
    }
  });

  test('closestKey suggests typos and synonyms, and nothing for far-off names', () => {
    assert.equal(closestKey('ratee'), 'rate');
    assert.equal(closestKey('vocie'), 'voice');
    assert.equal(closestKey('max_chars'), 'maxChars');
    assert.equal(closestKey('Engine'), 'engine');
    assert.equal(closestKey('speed'), 'rate');
    assert.equal(closestKey('kubernetes'), undefined);
  });
});

describe('resolveConfig', () => {
  test('no file: defaults, every source "default", project = cwd', async () => {
    const dir = project();
    const c = await resolveConfig(dir);
    assert.equal(c.file, undefined);
    assert.equal(c.projectDir, dir);
    assert.equal(c.projectName, basename(dir));
    assert.deepEqual(c.values, DEFAULTS);
    for (const key of CONFIG_KEYS) assert.equal(c.sources[key], 'default');
    assert.deepEqual(c.pronunciations, []);
  });

  test("a nested working directory finds the parent project's config", async () => {
    const dir = project({ '.vox/config.md': '---\nrate: 220\nannounce: true\n---\n', 'src/deep/er/x.txt': '' });
    const c = await resolveConfig(join(dir, 'src', 'deep', 'er'));
    const file = join(dir, '.vox', 'config.md');
    assert.equal(c.file, file);
    assert.equal(c.projectDir, dir);
    assert.equal(c.projectName, basename(dir));
    assert.equal(c.values.rate, 220);
    assert.equal(c.sources.rate, file);
    assert.equal(c.sources.voice, 'default');
    assert.equal(c.values.volume, DEFAULTS.volume);
    assert.equal(announceLabel(c), basename(dir));
    assert.ok(Object.isFrozen(c.values));
  });

  test('the nearest file wins (no merging)', async () => {
    const dir = project({
      '.vox/config.md': '---\nrate: 220\nvoice: outer\n---\n',
      'inner/.vox/config.md': '---\nvoice: inner\n---\n',
    });
    const c = await resolveConfig(join(dir, 'inner'));
    assert.equal(c.values.voice, 'inner');
    assert.equal(c.values.rate, DEFAULTS.rate);
    assert.equal(c.projectName, 'inner');
    assert.equal(findConfigFile(join(dir, 'inner')), join(dir, 'inner', '.vox', 'config.md'));
  });

  test('reads every key', async () => {
    const dir = project({
      '.vox/config.md': [
        '---',
        'voice: en-us',
        'rate: 190.5',
        'volume: 0.5',
        'engine: espeak-ng',
        'model: "tts-1"',
        'speak: false',
        'notify: continuous',
        'narrate: stream',
        'dedup: 30',
        "announce: 'API server'",
        'priority: notification',
        'maxChars: 600',
        'unattendedPrompts: true',
        'approveByVoice: true',
        '---',
      ].join('\n'),
    });
    const c = await resolveConfig(dir);
    assert.deepEqual(
      { ...c.values },
      {
        voice: 'en-us',
        rate: 190.5,
        volume: 0.5,
        engine: 'espeak-ng',
        model: 'tts-1',
        speak: false,
        notify: 'continuous',
        narrate: 'stream',
        dedup: 30,
        announce: 'API server',
        priority: 'notification',
        maxChars: 600,
        unattendedPrompts: true,
        approveByVoice: true,
      },
    );
    assert.equal(announceLabel(c), 'API server');
    for (const key of CONFIG_KEYS) assert.equal(c.sources[key], c.file);
  });

  test('an edit between two calls is seen', async () => {
    const dir = project({ '.vox/config.md': '---\nrate: 200\n---\n' });
    assert.equal((await resolveConfig(dir)).values.rate, 200);
    writeFileSync(join(dir, '.vox', 'config.md'), '---\nrate: 300\n---\n');
    assert.equal((await resolveConfig(dir)).values.rate, 300);
    rmSync(join(dir, '.vox', 'config.md'));
    assert.equal((await resolveConfig(dir)).values.rate, DEFAULTS.rate);
  });

  test('an invalid value names the file, the line, the key, the value and what is allowed', async () => {
    const dir = project({ '.vox/config.md': '---\n# comment\nvoice: en\nrate: 900\n---\n' });
    const err = await configError(dir);
    const file = join(dir, '.vox', 'config.md');
    assert.equal(err.code, 'VOX_ERR_CLIENT_CONFIG_INVALID');
    assert.equal(err.file, file);
    assert.equal(err.problems.length, 1);
    const [p] = err.problems;
    assert.deepEqual({ key: p!.key, line: p!.line, value: p!.value }, { key: 'rate', line: 4, value: 900 });
    assert.match(p!.allowed!, /80 to 500/);
    assert.ok(err.message.includes(`${file}:4: rate: 900 is not allowed`), err.message);
    assert.match(err.message, /words per minute from 80 to 500/);
  });

  test('an unknown key names the closest known key', async () => {
    const dir = project({ '.vox/config.md': '---\nvoise: en\n---\n' });
    const err = await configError(dir);
    assert.equal(err.problems[0]!.key, 'voise');
    assert.equal(err.problems[0]!.line, 2);
    assert.match(err.message, /:2: unknown key "voise"; did you mean "voice"\?/);
  });

  test('every problem is collected into one error', async () => {
    const dir = project({
      '.vox/config.md': [
        '---',
        'rate: fast', // 2
        'engine: festival', // 3
        'speak: no', // 4
        'zzzzzz: 1', // 5
        'announce: ""', // 6
        'priority: urgent', // 7
        'maxChars: 2.5', // 8
        'dedup: 0', // 9
        'volume: 2', // 10
        'model:', // 11
        '---',
        '## Pronunciations',
        '| word | say as |',
        '| --- | --- |',
        '| lonely |', // 16
      ].join('\n'),
    });
    const err = await configError(dir);
    assert.deepEqual(
      err.problems.map((p) => [p.key, p.line]),
      [
        ['rate', 2],
        ['engine', 3],
        ['speak', 4],
        ['zzzzzz', 5],
        ['announce', 6],
        ['priority', 7],
        ['maxChars', 8],
        ['dedup', 9],
        ['volume', 10],
        ['model', 11],
        ['Pronunciations', 16],
      ],
    );
    assert.match(err.message, /11 problems/);
    assert.match(
      err.message,
      /engine: "festival" is not allowed; use one of espeak, espeak-ng, say, sherpa, openai, elevenlabs, auto/,
    );
    assert.match(err.message, /YAML 1\.2 reads no as text: write true or false/);
    assert.match(err.message, /known keys: voice, rate/);
    assert.match(err.message, /model has no value/);
  });

  test('the same problems are found when the full YAML parser is needed', async () => {
    // A flow sequence sends the file to the `yaml` package; lines must still be right.
    const dir = project({ '.vox/config.md': '---\nvoice: [a, b]\n\nrate: 900\nvoise: x\n---\n' });
    const err = await configError(dir);
    assert.deepEqual(
      err.problems.map((p) => [p.key, p.line]),
      [
        ['voice', 2],
        ['rate', 4],
        ['voise', 5],
      ],
    );
  });

  test('YAML syntax errors and duplicate keys carry their line', async () => {
    let err = await configError(project({ '.vox/config.md': '---\nrate: 200\nvoice: [a\nvolume: 1\n---\n' }));
    assert.equal(err.problems[0]!.key, '(yaml)');
    assert.ok(err.problems[0]!.line! >= 3, JSON.stringify(err.problems));
    err = await configError(project({ '.vox/config.md': '---\nrate: 200\nrate: 210\n---\n' }));
    assert.equal(err.problems[0]!.line, 3);
    assert.match(err.message, /unique/);
  });

  test('YAML tags are refused, not read as text', async () => {
    const err = await configError(project({ '.vox/config.md': '---\nvoice: !!js/function "function(){}"\n---\n' }));
    assert.equal(err.problems[0]!.key, '(yaml)');
    assert.equal(err.problems[0]!.line, 2);
  });

  test('an alias bomb is refused, not expanded', async () => {
    const lines = ['---', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    lines.push('---');
    const err = await configError(project({ '.vox/config.md': lines.join('\n') }));
    assert.equal(err.problems.at(-1)!.key, '(yaml)');
  });

  test('front matter that is never closed is an error', async () => {
    const err = await configError(project({ '.vox/config.md': '---\nrate: 200\n' }));
    assert.match(err.message, /never closed/);
  });

  test('a body without front matter gives the defaults and its pronunciations', async () => {
    const dir = project({
      '.vox/config.md': '# Notes\n\n## Pronunciations\n\n| word | say as |\n|---|---|\n| k8s | kubernetes |\n',
    });
    const c = await resolveConfig(dir);
    assert.deepEqual(c.values, DEFAULTS);
    assert.deepEqual(c.pronunciations, [{ word: 'k8s', say: 'kubernetes' }]);
  });

  test('a byte-order mark and CRLF line endings are fine, and lines stay right', async () => {
    const dir = project({ '.vox/config.md': '\uFEFF---\r\nrate: 210\r\nvolume: 3\r\n---\r\nbody\r\n' });
    const err = await configError(dir);
    assert.equal(err.problems[0]!.key, 'volume');
    assert.equal(err.problems[0]!.line, 3);
    writeFileSync(join(dir, '.vox', 'config.md'), '\uFEFF---\r\nrate: 210\r\n---\r\nbody\r\n');
    assert.equal((await resolveConfig(dir)).values.rate, 210);
  });

  test('an empty front matter is the defaults', async () => {
    const c = await resolveConfig(project({ '.vox/config.md': '---\n---\n' }));
    assert.deepEqual(c.values, DEFAULTS);
    assert.ok(c.file);
  });
});

describe('safety: no code runs', () => {
  for (const lang of ['js', 'javascript', ' js', 'coffee', 'toml', 'JS']) {
    test(`---${lang} front matter is an error and runs nothing`, async () => {
      const dir = project();
      const marker = join(dir, 'PWNED');
      const code = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports = { rate: 200 }`;
      mkdirSync(join(dir, '.vox'));
      writeFileSync(join(dir, '.vox', 'config.md'), `---${lang}\n${code}\n---\nbody\n`);
      const err = await configError(dir);
      assert.equal(err.problems.length, 1);
      assert.equal(err.problems[0]!.line, 1);
      assert.match(err.message, /only YAML front matter is allowed/);
      assert.equal(existsSync(marker), false, 'the front matter ran');
    });
  }

  test('---yaml and ---yml are YAML', async () => {
    assert.equal((await resolveConfig(project({ '.vox/config.md': '---yaml\nrate: 111\n---\n' }))).values.rate, 111);
    assert.equal((await resolveConfig(project({ '.vox/config.md': '--- yml\nrate: 112\n---\n' }))).values.rate, 112);
  });

  test('what cosmiconfig would run is not run: a .config/config.js meta config and $import', async () => {
    const dir = project();
    const marker = join(dir, 'PWNED');
    const js = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports = {};`;
    writeFileSync(join(dir, 'evil.cjs'), js);
    mkdirSync(join(dir, '.config'));
    writeFileSync(join(dir, '.config', 'config.js'), js);
    mkdirSync(join(dir, '.vox'));
    writeFileSync(join(dir, '.vox', 'config.md'), '---\n$import: ../evil.cjs\n---\n');
    const err = await configError(dir);
    assert.match(err.message, /unknown key "\$import"/);
    assert.equal(existsSync(marker), false);
  });
});

describe('splitFrontMatter', () => {
  const cases = [
    '---\na: 1\n---\nbody\n',
    '---\n---\n',
    '---\r\na: 1\r\n---\r\nbody',
    '\uFEFF---\na: 1\n---   \nbody',
    'no front matter\n---\n',
    '----\nrule\n',
    '---js\nx\n---\n',
    '---\nunclosed\n',
    '---',
    '',
  ];
  for (const text of cases) {
    test(`keeps every character: ${JSON.stringify(text)}`, () => {
      const fm = splitFrontMatter(text);
      assert.equal(fm.head + fm.yaml + fm.close + fm.body, text);
    });
  }

  test('finds the parts and their lines', () => {
    const fm = splitFrontMatter('---\na: 1\nb: 2\n---\n# Body\n');
    assert.deepEqual(
      {
        present: fm.present,
        language: fm.language,
        closed: fm.closed,
        yaml: fm.yaml,
        yamlLine: fm.yamlLine,
        body: fm.body,
        bodyLine: fm.bodyLine,
      },
      { present: true, language: '', closed: true, yaml: 'a: 1\nb: 2\n', yamlLine: 2, body: '# Body\n', bodyLine: 5 },
    );
    assert.equal(splitFrontMatter('---js\nx\n---\n').language, 'js');
    assert.equal(splitFrontMatter('----\n').present, false);
    assert.equal(splitFrontMatter('text\n---\na: 1\n---\n').present, false);
  });
});

describe('parseFlatYaml agrees with the yaml package', () => {
  const values = [
    '',
    '~',
    'null',
    'Null',
    'NULL',
    'true',
    'True',
    'TRUE',
    'false',
    'False',
    'FALSE',
    'yes',
    'no',
    'on',
    'off',
    '0',
    '-0',
    '007',
    '+5',
    '-12',
    '175',
    '99999999999999999999',
    '1.5',
    '1.',
    '.5',
    '-.5',
    '+1.25',
    '1e3',
    '0x1f',
    '0o17',
    '.inf',
    '.nan',
    'en-us',
    'tts-1',
    'gpt-4o-mini-tts',
    'API server',
    'a # comment',
    'a#b',
    'shop   # trailing',
    '# only a comment',
    '"quoted"',
    '"with # hash"',
    "'single'",
    "'it''s'",
    '"esc\\n"',
    '"a" # c',
    '"a" b',
    "'a' # c",
    '[a, b]',
    '{a: 1}',
    '&anchor x',
    '*alias',
    '!!str 5',
    '!tag x',
    '|',
    '>',
    '- item',
    '? q',
    'a: b',
    'a:b',
    'C:\\dir',
    '@x',
    '`x`',
    '%x',
    'wörter',
    'x\ty',
  ];
  for (const v of values) {
    test(`key: ${v}`, () => {
      const text = `k: ${v}\n`;
      const flat = parseFlatYaml(text);
      if (!flat) return; // handed to `yaml`: nothing to compare
      let expected: unknown;
      try {
        expected = parseYaml(text, { version: '1.2', schema: 'core' });
      } catch (err) {
        assert.fail(`the flat reader accepted what yaml refuses: ${String(err)}`);
      }
      assert.deepEqual({ k: flat[0]!.value }, expected);
      assert.ok(Object.is(flat[0]!.value, (expected as { k: unknown }).k), 'same value, same sign');
    });
  }

  test('comments, blank lines and lines numbers', () => {
    assert.deepEqual(parseFlatYaml('# c\n\n  # indented comment\nrate: 200\nvoice: en # x\n', 10), [
      { key: 'rate', value: 200, line: 13 },
      { key: 'voice', value: 'en', line: 14 },
    ]);
  });

  test('hands anything else to yaml', () => {
    for (const text of [
      'a:\n  - 1\n',
      ' a: 1\n',
      'a: 1\na: 2\n',
      '"a": 1\n',
      'a b: 1\n',
      '...\n',
      'a: x\n  y\n',
      '? a\n',
    ]) {
      assert.equal(parseFlatYaml(text), undefined, text);
    }
  });
});

describe('the template and the docs', () => {
  const template = readFileSync(join(repoRoot, 'config', 'config.md'), 'utf8');

  test('config/config.md is valid and sets nothing: every value is the default, no pronunciation applies', async () => {
    const parsed = await parseConfig(template, 'config/config.md');
    assert.deepEqual(parsed.values, {});
    assert.deepEqual(
      parsed.pronunciations,
      [],
      'the examples are shown, not applied (a fresh project must not say "cube control")',
    );
    assert.match(template, /\| kubectl \| cube control \|/, 'the example is still there to copy');
    // A row added under the template's table is read: the table itself is live.
    const added = await parseConfig(`${template}| nginx | engine x |\n`, 'config/config.md');
    assert.deepEqual(added.pronunciations, [{ word: 'nginx', say: 'engine x' }]);
  });

  test('config/config.md shows every key, commented out with its default', () => {
    for (const key of CONFIG_KEYS) {
      const m = new RegExp(`^# ${key}: (.*)$`, 'm').exec(template);
      assert.ok(m, `the template has no "# ${key}:" line`);
      if (!SCHEMA[key].optional) assert.deepEqual(parseYaml(m[1]!), DEFAULTS[key], key);
      else assert.ok(SCHEMA[key].check(parseYaml(m[1]!)), `example for ${key} is not valid`);
    }
  });

  /** The comment lines just above the template's `# key:` line. */
  const commentOf = (key: string) => {
    const lines = template.split('\n');
    const at = lines.findIndex((l) => l.startsWith(`# ${key}: `));
    let start = at;
    while (start > 0 && lines[start - 1]!.startsWith('# ')) start--;
    return lines.slice(start, at).join(' ');
  };
  const word = (text: string, w: string) => new RegExp(`(?<![\\w-])${w}(?![\\w-])`).test(text);
  // `continuous` is chatty's older name: still taken, never offered.
  const notifyShown = NOTIFY_MODES.filter((m) => m !== 'continuous');

  test('config/config.md offers every engine of the ENGINES table and every notify mode by its current name', () => {
    const engines = commentOf('engine');
    for (const name of [...ENGINES.map((e) => e.name), 'auto'])
      assert.ok(word(engines, name), `the template's engine comment lacks ${name}: ${engines}`);
    const notify = commentOf('notify');
    for (const mode of notifyShown) assert.ok(word(notify, mode), `the template's notify comment lacks ${mode}`);
    assert.ok(!word(notify, 'continuous'), 'the template offers chatty by its older name');
  });

  test("every notify value and every list of engines or notify modes the docs show is the schema's", () => {
    // docs/benchmarks-history.md records past runs as they were worded then.
    const files = [
      'README.md',
      'config/config.md',
      ...readdirSync(join(repoRoot, 'docs'))
        .filter((f) => f.endsWith('.md') && f !== 'benchmarks-history.md')
        .map((f) => `docs/${f}`),
    ];
    const problems: string[] = [];
    let shown = 0;
    for (const file of files) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      for (const [, value] of text.matchAll(/\bnotify: `?([\w-]+)/g)) {
        shown++;
        if (!notifyShown.includes(value as (typeof notifyShown)[number]))
          problems.push(`${file}: notify: ${value} is not one of ${notifyShown.join(', ')}`);
      }
      // A table row of the key (docs/config.md, the configure tool in docs/mcp.md) lists every value.
      for (const row of text.split('\n')) {
        const [, key] = /^\| `(engine|notify)` +\|/.exec(row) ?? [];
        if (!key) continue;
        const values = key === 'engine' ? [...ENGINES.map((e) => e.name), 'auto'] : NOTIFY_MODES;
        for (const v of values) if (!row.includes(`\`${v}\``)) problems.push(`${file}: the ${key} row lacks \`${v}\``);
      }
    }
    assert.ok(shown >= 8, `found only ${shown} notify values in the docs`);
    assert.deepEqual(problems, []);
  });

  test('docs/config.md documents every key with its default', () => {
    const docs = readFileSync(join(repoRoot, 'docs', 'config.md'), 'utf8');
    for (const key of CONFIG_KEYS) {
      assert.ok(docs.includes(`### \`${key}\``), `docs/config.md has no section for ${key}`);
      const row = docs.split('\n').find((l) => l.startsWith(`| \`${key}\``));
      assert.ok(row, `docs/config.md has no table row for ${key}`);
      const shown = DEFAULTS[key] === undefined ? '(unset)' : `\`${String(DEFAULTS[key])}\``;
      assert.ok(row.includes(shown), `the docs row of ${key} does not show its default ${shown}`);
    }
  });
});
