import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SETTINGS_SCHEMA, SETTING_KEYS, SettingsError } from '@vox/protocol/settings';
import { DAEMON_SETTING_VARIABLES } from '../../src/daemon/autostart.js';
import { getSetting, listSettings, setSetting, unsetSetting } from '../../src/daemon/daemon-settings.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-daemon-settings-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function env(text?: string): { env: NodeJS.ProcessEnv; file: string } {
  const dir = join(tmp, String(n++));
  const file = join(dir, 'voxd.yaml');
  if (text !== undefined) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, text);
  }
  return { env: { VOX_CONFIG_HOME: dir }, file };
}

describe('vox daemon config: the settings file', () => {
  test('set creates the file; get and the listing read it back with its source', () => {
    const { env: e, file } = env();
    assert.equal(existsSync(file), false);
    const r = setSetting(e, 'port', '9123', '/');
    assert.deepEqual(r, { path: file, key: 'port', value: 9123, problems: [] });
    assert.equal(readFileSync(file, 'utf8'), 'port: 9123\n');
    assert.deepEqual(getSetting(e, 'port'), { key: 'port', value: 9123, source: 'file' });
    const listing = listSettings(e);
    assert.deepEqual(
      listing.settings.map((s) => `${s.key}=${s.value}:${s.source}`),
      [
        'audio=auto:default',
        'engine=auto:default',
        'port=9123:file',
        'host=127.0.0.1:default',
        'logLevel=info:default',
        'listen.recorder=auto:default',
        'listen.vad=auto:default',
        'listen.bargeIn=off:default',
        'transcriber.kind=auto:default',
        'transcriber.url=:default',
        'transcriber.model=whisper-1:default',
        'transcriber.timeoutMs=30000:default',
        'sherpa.idleUnloadMs=0:default',
        'attention=all:default',
        'digestMs=180000:default',
        'quiet.hours=:default',
        'quiet.microphone=auto:default',
      ],
    );
  });

  test('the environment shows as the source, with the file value it hides', () => {
    const { env: e } = env('audio: "file:/srv/wav"\n');
    const audio = listSettings({ ...e, VOXD_AUDIO: 'null' }).settings[0]!;
    assert.deepEqual(audio, {
      key: 'audio',
      value: 'null',
      source: 'env',
      variable: 'VOXD_AUDIO',
      fileValue: 'file:/srv/wav',
    });
  });

  test('edits keep comments and the other lines; unset removes one key', () => {
    const { env: e, file } = env('# voxd on this laptop\nengine: espeak # offline\nlogLevel: debug\n');
    setSetting(e, 'engine', 'openai', '/');
    assert.equal(readFileSync(file, 'utf8'), '# voxd on this laptop\nengine: openai # offline\nlogLevel: debug\n');
    assert.deepEqual(unsetSetting(e, 'logLevel'), { path: file, key: 'logLevel', removed: true, value: 'info' });
    assert.equal(readFileSync(file, 'utf8'), '# voxd on this laptop\nengine: openai # offline\n');
    assert.equal(unsetSetting(e, 'logLevel').removed, false);
  });

  test('a relative file: sink is made absolute against the working directory; "null" stays a string', () => {
    const { env: e, file } = env();
    assert.equal(setSetting(e, 'audio', 'file:out?realtime=0', '/work/p').value, 'file:/work/p/out?realtime=0');
    setSetting(e, 'audio', 'null', '/');
    assert.equal(readFileSync(file, 'utf8'), 'audio: "null"\n');
    assert.equal(getSetting(e, 'audio').value, 'null');
  });

  test('a bad key or value is refused with the closest key or the allowed values, and nothing is written', () => {
    const { env: e, file } = env('port: 9000\n');
    assert.throws(
      () => setSetting(e, 'prot', '1', '/'),
      (err: unknown) =>
        err instanceof SettingsError &&
        /unknown key "prot"; did you mean "port"\?/.test(err.message) &&
        err.message.startsWith(file),
    );
    assert.throws(
      () => setSetting(e, 'port', '70000', '/'),
      /port: 70000 is not allowed \(not a port\); use an integer from 0 to 65535/,
    );
    assert.throws(() => setSetting(e, 'audio', 'spekaer', '/'), /did you mean "speaker"/);
    assert.throws(() => getSetting(e, 'enigne'), /did you mean "engine"/);
    assert.equal(readFileSync(file, 'utf8'), 'port: 9000\n');
  });

  test('a file that is not valid YAML is not edited; a wrong value elsewhere does not block a fix', () => {
    const broken = env('port: [9000\n');
    assert.throws(() => setSetting(broken.env, 'engine', 'espeak', '/'), /not valid YAML, so it is not edited/);
    assert.equal(readFileSync(broken.file, 'utf8'), 'port: [9000\n');
    const wrong = env('port: x\nengine: nope\n');
    const r = setSetting(wrong.env, 'port', '9000', '/');
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!.message, /engine: "nope"/);
    assert.equal(readFileSync(wrong.file, 'utf8'), 'port: 9000\nengine: nope\n');
  });
});

test('an auto-started voxd takes every setting but port and host from its file, not from the client that starts it', () => {
  const want = SETTING_KEYS.filter((k) => k !== 'port' && k !== 'host')
    .map((k) => SETTINGS_SCHEMA[k].env)
    .sort();
  assert.deepEqual([...DAEMON_SETTING_VARIABLES].sort(), want);
});

test('transcriber and listen settings are written as YAML sections and read back', () => {
  const { env: e, file } = env();
  setSetting(e, 'transcriber.url', 'http://127.0.0.1:8080/v1', tmp);
  setSetting(e, 'transcriber.model', 'Systran/faster-whisper-small', tmp);
  setSetting(e, 'listen.recorder', 'arecord', tmp);
  const text = readFileSync(file, 'utf8');
  assert.match(
    text,
    /^transcriber:\n {2}url: http:\/\/127\.0\.0\.1:8080\/v1\n {2}model: Systran\/faster-whisper-small\n/m,
  );
  assert.match(text, /^listen:\n {2}recorder: arecord\n/m);
  assert.equal(getSetting(e, 'transcriber.url').value, 'http://127.0.0.1:8080/v1');
  assert.throws(() => setSetting(e, 'transcriber.url', 'ftp://x', tmp), SettingsError);
});
