// Drives the real built binary: run `npx tsc -b` first.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));
const template = fileURLToPath(new URL('../../../../../config/config.md', import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vox-'));
  dirs.push(dir);
  return dir;
}

function vox(cwd: string, ...args: string[]) {
  assert.ok(existsSync(cli), `${cli} is missing: run "npx tsc -b" first`);
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('vox config', () => {
  test('with no file: every key, its default, and "(default)"', () => {
    const dir = tempDir();
    const r = vox(dir, 'config');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^rate = 175 {2}\(default\)$/m);
    assert.match(r.stdout, /^engine = "auto" {2}\(default\)$/m);
    assert.match(r.stdout, /^voice = \(unset\) {2}\(default\)$/m);
    assert.match(r.stdout, /^unattendedPrompts = false {2}\(default\)$/m);
    assert.match(r.stdout, /^approveByVoice = false {2}\(default\)$/m);
    assert.match(r.stdout, /^narrate = "summary" {2}\(default\)$/m);
    assert.equal(r.stdout.split('\n').filter((l) => / = /.test(l)).length, 14);
  });

  test("values from a parent directory's file name it as their source", () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.vox'));
    mkdirSync(join(dir, 'sub'));
    const file = join(dir, '.vox', 'config.md');
    writeFileSync(
      file,
      '---\nrate: 240\nannounce: shop\n---\n## Pronunciations\n| w | s |\n|-|-|\n| kubectl | cube control |\n',
    );
    const r = vox(join(dir, 'sub'), 'config');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`rate = 240  (${file})`), r.stdout);
    assert.ok(r.stdout.includes(`announce = "shop"  (${file})`), r.stdout);
    assert.match(r.stdout, /^volume = 1 {2}\(default\)$/m);
    assert.match(r.stdout, /kubectl → cube control/);

    const j = vox(join(dir, 'sub'), 'config', '--json');
    assert.equal(j.code, 0, j.stderr);
    const json = JSON.parse(j.stdout);
    assert.equal(json.file, file);
    assert.equal(json.projectName, basename(dir));
    assert.equal(json.values.rate, 240);
    assert.equal(json.values.model, null);
    assert.equal(json.sources.rate, file);
    assert.equal(json.sources.voice, 'default');
    assert.deepEqual(json.pronunciations, [{ word: 'kubectl', say: 'cube control' }]);
  });

  test('check: 0 and "ok: FILE" for a valid file, 7 and every problem for an invalid one', () => {
    const dir = tempDir();
    const none = vox(dir, 'config', 'check');
    assert.equal(none.code, 0);
    assert.match(none.stdout, /^ok: /);

    mkdirSync(join(dir, '.vox'));
    const file = join(dir, '.vox', 'config.md');
    writeFileSync(file, '---\nrate: 200\n---\n');
    const ok = vox(dir, 'config', 'check');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, `ok: ${file}\n`);

    writeFileSync(file, '---\nrate: 200\nvolume: 5\nvoise: x\n---\n');
    const bad = vox(dir, 'config', 'check');
    assert.equal(bad.code, 7);
    assert.equal(bad.stdout, '');
    assert.ok(
      bad.stderr.includes(`${file}:3: volume: 5 is not allowed; use a number from 0 (silent) to 1 (full)`),
      bad.stderr,
    );
    assert.ok(bad.stderr.includes(`${file}:4: unknown key "voise"; did you mean "voice"?`), bad.stderr);

    // `vox config` itself fails the same way: nothing is silently defaulted.
    assert.equal(vox(dir, 'config').code, 7);
  });

  test('---js front matter: exit 7, and the code does not run', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.vox'));
    const marker = join(dir, 'PWNED');
    writeFileSync(
      join(dir, '.vox', 'config.md'),
      `---js\nrequire('fs').writeFileSync(${JSON.stringify(marker)}, 'x')\n---\n`,
    );
    const r = vox(dir, 'config', 'check');
    assert.equal(r.code, 7);
    assert.match(r.stderr, /only YAML front matter is allowed/);
    assert.equal(existsSync(marker), false);
  });

  test('bad flags and arguments: exit 2', () => {
    const dir = tempDir();
    assert.equal(vox(dir, 'config', '--nope').code, 2);
    assert.equal(vox(dir, 'config', 'frobnicate').code, 2);
    assert.equal(vox(dir, 'config', 'check', 'extra').code, 2);
    const help = vox(dir, 'config', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: vox config/);
  });
});

describe('vox init', () => {
  test('writes the template, refuses to overwrite, and --force does', () => {
    const dir = tempDir();
    const file = join(dir, '.vox', 'config.md');
    const r = vox(dir, 'init');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${file}\n`);
    // The template is found from dist/commands/init.js, and written as is.
    assert.equal(readFileSync(file, 'utf8'), readFileSync(template, 'utf8'));
    assert.equal(vox(dir, 'config', 'check').code, 0);

    writeFileSync(file, '---\nrate: 300\n---\n');
    const again = vox(dir, 'init');
    assert.equal(again.code, 2);
    assert.match(again.stderr, /exists already.*--force/);
    assert.equal(readFileSync(file, 'utf8'), '---\nrate: 300\n---\n');

    const forced = vox(dir, 'init', '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(file, 'utf8'), readFileSync(template, 'utf8'));
  });

  test('a fresh init applies no pronunciation: kubectl stays kubectl until the user adds a row', () => {
    const dir = tempDir();
    assert.equal(vox(dir, 'init').code, 0);
    const json = JSON.parse(vox(dir, 'config', '--json').stdout);
    assert.deepEqual(json.pronunciations, []);
    const payload = JSON.stringify({
      hook_event_name: 'Stop',
      cwd: dir,
      last_assistant_message: 'Deployed it with kubectl and nginx.',
    });
    const hook = spawnSync(process.execPath, [cli, 'hook', 'Stop', '--dry-run'], {
      cwd: dir,
      input: payload,
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(hook.status, 0, hook.stderr);
    const text = JSON.parse(hook.stdout).body.text as string;
    assert.match(text, /kubectl and nginx/, text);
    assert.doesNotMatch(text, /cube control|engine x/);
  });

  test('in a subdirectory of a configured project: writes there and says what it shadows', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.vox'));
    writeFileSync(join(dir, '.vox', 'config.md'), '---\n---\n');
    mkdirSync(join(dir, 'pkg'));
    const r = vox(join(dir, 'pkg'), 'init');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(dir, 'pkg', '.vox', 'config.md')));
    assert.match(r.stderr, /takes the place of/);
  });

  test('bad flags: exit 2', () => {
    assert.equal(vox(tempDir(), 'init', '--frobnicate').code, 2);
  });
});
