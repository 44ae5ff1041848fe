import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  AUDIO_SINK_KINDS,
  SETTINGS_DEFAULTS,
  SettingsError,
  audioSpecProblem,
  checkSetting,
  formatProblem,
  parseQuietHours,
  parseSettings,
  readSettingsFile,
  resolveSettings,
  settingsDir,
  settingsPath,
} from '../src/settings.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-settings-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('where the settings file lives', () => {
  test('VOX_CONFIG_HOME, else XDG_CONFIG_HOME or ~/.config on Linux, Application Support on macOS, APPDATA on Windows', () => {
    assert.equal(settingsDir({ VOX_CONFIG_HOME: '/t/cfg', XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u'), '/t/cfg');
    assert.equal(settingsDir({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u'), '/x/vox');
    assert.equal(
      settingsDir({ XDG_CONFIG_HOME: 'relative' }, 'linux', '/home/u'),
      '/home/u/.config/vox',
      'a relative XDG_CONFIG_HOME is ignored, as the spec says',
    );
    assert.equal(settingsDir({}, 'linux', '/home/u'), '/home/u/.config/vox');
    assert.equal(settingsDir({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/vox');
    assert.equal(
      settingsDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u'),
      join('C:\\Users\\u\\AppData\\Roaming', 'vox'),
    );
    assert.equal(settingsPath({ VOX_CONFIG_HOME: '/t' }), '/t/voxd.yaml');
  });
});

describe('parseSettings', () => {
  test('a valid file, comments and all', () => {
    const r = parseSettings(
      '# mine\naudio: "file:/tmp/out?realtime=0"\nengine: espeak # the embedded one\nport: 9000\nhost: ::1\nlogLevel: debug\n',
      'f.yaml',
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.values, {
      audio: 'file:/tmp/out?realtime=0',
      engine: 'espeak',
      port: 9000,
      host: '::1',
      logLevel: 'debug',
    });
    assert.equal(r.lines.port, 4);
  });

  test('listen.vad: auto, silero or energy, and nothing else', () => {
    assert.deepEqual(parseSettings('listen.vad: silero\n', 'f.yaml').values, { 'listen.vad': 'silero' });
    const r = parseSettings('listen:\n  vad: silro\n', 'f.yaml');
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.key, 'listen.vad');
    assert.match(r.problems[0]!.message, /did you mean "silero"\?/);
    assert.match(r.problems[0]!.message, /auto, silero, energy/);
  });

  test('transcriber.kind: auto, server or local, beside the transcriber section', () => {
    assert.deepEqual(parseSettings('transcriber:\n  kind: local\n  url: http://127.0.0.1:8080/v1\n', 'f.yaml').values, {
      'transcriber.kind': 'local',
      'transcriber.url': 'http://127.0.0.1:8080/v1',
    });
    const r = parseSettings('transcriber.kind: locl\n', 'f.yaml');
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!.message, /did you mean "local"\?/);
  });

  test('every problem at once, with file, line, key, value, the allowed values and the closest key', () => {
    const r = parseSettings(
      'audoi: speaker\nport: "8421"\nengine: espek\nhost: 0.0.0.0\naudio: file:out\n',
      '/c/voxd.yaml',
    );
    assert.equal(r.problems.length, 5);
    const [a, b, c, d, e] = r.problems;
    assert.deepEqual(
      { ...a, message: undefined },
      {
        origin: '/c/voxd.yaml',
        line: 1,
        key: 'audoi',
        allowed:
          'audio, engine, port, host, logLevel, listen.recorder, listen.vad, listen.bargeIn, transcriber.kind, transcriber.url, transcriber.model, transcriber.timeoutMs, sherpa.idleUnloadMs, attention, digestMs, quiet.hours, quiet.microphone',
        message: undefined,
      },
    );
    assert.match(a!.message, /unknown key "audoi"; did you mean "audio"\?/);
    assert.equal(b!.line, 2);
    assert.equal(b!.value, '8421');
    assert.match(b!.message, /^port: "8421" is not allowed \(not a port\); use an integer from 0 to 65535/);
    assert.match(
      c!.message,
      /engine: "espek" is not allowed \(did you mean "espeak"\?\); use one of espeak, espeak-ng, say, sherpa, openai, elevenlabs, auto/,
    );
    assert.match(d!.message, /host: "0\.0\.0\.0" is not allowed .*loopback/);
    assert.match(e!.message, /audio: "file:out" is not allowed \(the directory "out" is not an absolute path\)/);
    assert.deepEqual(r.values, {}, 'nothing invalid is kept, nothing is replaced by its default');
  });

  test('a bare null is no value, with a hint for the null sink; an empty file is no settings', () => {
    assert.match(parseSettings('audio: null\n', 'f').problems[0]!.message, /write audio: "null"/);
    assert.deepEqual(parseSettings('', 'f'), { values: {}, lines: {}, problems: [] });
    assert.deepEqual(parseSettings('# only a comment\n', 'f').problems, []);
  });

  test('YAML errors, code-bearing tags, duplicate keys and a file that is not a map are problems', () => {
    assert.match(parseSettings('port: [1\n', 'f').problems[0]!.message, /^YAML: /);
    const tagged = parseSettings('engine: !!js/function "x"\n', 'f');
    assert.ok(
      tagged.problems.some((p) => /YAML: .*tag/i.test(p.message)),
      JSON.stringify(tagged.problems),
    );
    assert.match(parseSettings('port: 1\nport: 2\n', 'f').problems[0]!.message, /YAML: .*unique/i);
    assert.match(parseSettings('- audio\n', 'f').problems[0]!.message, /key: value/);
  });

  test("40,000 unknown keys: 20 problems named and the rest counted; duplicates found without yaml's quadratic check", () => {
    const text = Array.from({ length: 40_000 }, (_, i) => `k${i}: 1`).join('\n');
    const r = parseSettings(text, 'f');
    assert.equal(r.problems.length, 21);
    assert.match(r.problems[0]!.message, /unknown key "k0"/);
    assert.equal(r.problems[20]!.message, 'and 39980 more problems like these');
    const dup = parseSettings('port: 1\nengine: espeak\nport: 2\n', 'f');
    assert.deepEqual(
      dup.problems.map((p) => [p.line, p.message]),
      [[3, 'YAML: map keys must be unique: "port" is set twice; keep one']],
    );
  });

  test('an alias is refused, not expanded; a key of 60,000 characters is named by its start', () => {
    const r = parseSettings('x: &a espeak\nengine: *a\n', 'f');
    assert.ok(
      r.problems.some((p) => /engine: an alias \(\*a\) is not allowed here/.test(p.message)),
      JSON.stringify(r.problems),
    );
    assert.equal(r.values.engine, undefined);
    const long = parseSettings(`${'k'.repeat(60_000)}: 1\n`, 'f');
    assert.ok(long.problems[0]!.message.length < 400, `${long.problems[0]!.message.length} characters`);
  });

  test('an unknown section is named like an unknown key', () => {
    const r = parseSettings('transcribr:\n  model: x\n', 'f');
    assert.match(r.problems[0]!.message, /unknown key "transcribr"/);
  });

  test('the transcriber and listen sections are read as dotted keys, each checked', () => {
    const r = parseSettings(
      'transcriber:\n  url: http://127.0.0.1:8080/v1\n  model: whisper-1\n  timeoutMs: 5000\nlisten:\n  recorder: arecord\n',
      'f',
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.values, {
      'transcriber.url': 'http://127.0.0.1:8080/v1',
      'transcriber.model': 'whisper-1',
      'transcriber.timeoutMs': 5000,
      'listen.recorder': 'arecord',
    });
    const bad = parseSettings(
      'transcriber:\n  url: http://k:secret@host/v1/audio/transcriptions\n  modle: x\nlisten:\n  recorder: arecrd\n',
      'f',
    );
    assert.match(bad.problems[0]!.message, /TRANSCRIBER_API_KEY/);
    assert.match(bad.problems[1]!.message, /unknown key "transcriber.modle"; did you mean "transcriber.model"/);
    assert.match(bad.problems[2]!.message, /did you mean "arecord"/);
    assert.match(
      parseSettings('listen:\n  recorder: /opt/bin/parecord\n', 'f').problems[0]!.message,
      /none of arecord, rec, sox/,
    );
  });
});

describe('audio specs', () => {
  // That voxd's createSink builds each of them is test/audio/audio-specs.test.ts (it reaches into voxd).
  test('each kind voxd builds is accepted', () => {
    const ok = [
      'auto',
      'audioio',
      'speaker',
      'null',
      'command',
      'command:aplay',
      `file:${tmp}`,
      `file:${tmp}?realtime=0`,
    ];
    for (const spec of ok) assert.equal(audioSpecProblem(spec), undefined, spec);
    for (const kind of AUDIO_SINK_KINDS)
      assert.ok(
        ok.some((s) => s.split(':')[0] === kind),
        kind,
      );
  });

  test('wrong specs say what is wrong', () => {
    assert.match(audioSpecProblem('spekaer')!, /unknown sink "spekaer" \(did you mean "speaker"\?\)/);
    assert.match(audioSpecProblem('command:mpv')!, /unknown player "mpv"/);
    assert.match(audioSpecProblem('file:')!, /needs a directory/);
    assert.match(audioSpecProblem('file:/x?speed=2')!, /unknown option "speed=2"/);
    assert.match(audioSpecProblem('null:x')!, /takes nothing after it/);
  });
});

describe('resolveSettings', () => {
  test('flags, else the environment, else the file, else the default; with the source of each', () => {
    const file = parseSettings('audio: "file:/f"\nengine: espeak\nport: 9000\n', 'f');
    const r = resolveSettings({ env: { VOXD_ENGINE: 'say', VOXD_PORT: '0' }, file, flags: { port: '9100' } });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.values, { ...SETTINGS_DEFAULTS, audio: 'file:/f', engine: 'say', port: 9100 });
    assert.deepEqual(r.sources, {
      audio: 'file',
      engine: 'env',
      port: 'flag',
      host: 'default',
      logLevel: 'default',
      'listen.recorder': 'default',
      'listen.vad': 'default',
      'listen.bargeIn': 'default',
      'transcriber.kind': 'default',
      'transcriber.url': 'default',
      'transcriber.model': 'default',
      'transcriber.timeoutMs': 'default',
      'sherpa.idleUnloadMs': 'default',
      attention: 'default',
      digestMs: 'default',
      'quiet.hours': 'default',
      'quiet.microphone': 'default',
    });
    assert.equal(resolveSettings({ env: { VOXD_PORT: '0' }, file }).values.port, 0);
  });

  test('an invalid variable is a problem named by the variable, not replaced by the file', () => {
    const r = resolveSettings({
      env: { VOXD_PORT: 'abc', VOXD_AUDIO: 'spekaer' },
      file: { values: { port: 9000 }, problems: [] },
    });
    assert.deepEqual(
      r.problems.map((p) => p.origin),
      ['VOXD_AUDIO', 'VOXD_PORT'],
    );
    assert.match(r.problems[1]!.message, /port: "abc" is not allowed/);
    assert.match(
      resolveSettings({ env: { VOXD_PORT: '99999' }, file: { values: {}, problems: [] } }).problems[0]!.message,
      /port: 99999 is not allowed/,
    );
  });

  test('sherpa.idleUnloadMs: 0 (never) or 100 ms to a day; a unit, a fraction or a negative is refused with the file, line, key and allowed values', () => {
    const ok = parseSettings('sherpa:\n  idleUnloadMs: 600000\n', 'f');
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(ok.values, { 'sherpa.idleUnloadMs': 600_000 });
    assert.equal(SETTINGS_DEFAULTS['sherpa.idleUnloadMs'], 0, 'models stay loaded unless asked');
    assert.equal(checkSetting('sherpa.idleUnloadMs', 0, 'x'), undefined);
    assert.equal(checkSetting('sherpa.idleUnloadMs', 100, 'x'), undefined);
    assert.equal(checkSetting('sherpa.idleUnloadMs', 86_400_000, 'x'), undefined);
    const allowed =
      '0 (keep voice models loaded) or an integer from 100 to 86400000 (ms of no speech before a model is unloaded, e.g. 600000 for 10 minutes)';
    const bad = parseSettings('engine: auto\nsherpa:\n  idleUnloadMs: 10m\nsherpa.idleUnloadMs: 50\n', '/c/voxd.yaml');
    assert.deepEqual(bad.values, { engine: 'auto' });
    assert.deepEqual(bad.problems.map(formatProblem), [
      `/c/voxd.yaml:3: sherpa.idleUnloadMs: "10m" is not allowed (a number of milliseconds, without a unit); use ${allowed}`,
      `/c/voxd.yaml:4: sherpa.idleUnloadMs: 50 is not allowed (out of range); use ${allowed}`,
    ]);
    assert.equal(bad.problems[0]!.key, 'sherpa.idleUnloadMs');
    assert.equal(bad.problems[0]!.allowed, allowed);
    for (const v of [-1, 1.5, 86_400_001, 'soon', true])
      assert.ok(checkSetting('sherpa.idleUnloadMs', v, 'x'), `${JSON.stringify(v)} is refused`);
    const fromEnv = resolveSettings({ env: { VOXD_SHERPA_IDLE_UNLOAD_MS: '30s' }, file: { values: {}, problems: [] } });
    assert.equal(fromEnv.problems[0]!.origin, 'VOXD_SHERPA_IDLE_UNLOAD_MS');
    assert.match(
      formatProblem(fromEnv.problems[0]!),
      /^VOXD_SHERPA_IDLE_UNLOAD_MS: sherpa\.idleUnloadMs: "30s" is not allowed \(a number of milliseconds, without a unit\)/,
    );
    assert.equal(
      resolveSettings({ env: { VOXD_SHERPA_IDLE_UNLOAD_MS: '1500' }, file: { values: {}, problems: [] } }).values[
        'sherpa.idleUnloadMs'
      ],
      1500,
    );
    assert.match(
      parseSettings('sherpa:\n  idleUnload: 5000\n', 'f').problems[0]!.message,
      /unknown key "sherpa\.idleUnload"; did you mean "sherpa\.idleUnloadMs"\?/,
    );
  });

  test('checkSetting and SettingsError', () => {
    assert.equal(checkSetting('port', 8421, 'x'), undefined);
    const err = new SettingsError([checkSetting('logLevel', 'loud', '/c/voxd.yaml', 3)!]);
    assert.match(err.message, /^\/c\/voxd\.yaml:3: logLevel: "loud" is not allowed/);
  });
});

describe('readSettingsFile', () => {
  test('a missing file is every default; a directory in its place is a problem', () => {
    assert.deepEqual(readSettingsFile(join(tmp, 'none.yaml')).problems, []);
    assert.equal(readSettingsFile(join(tmp, 'none.yaml')).exists, false);
    assert.match(
      readSettingsFile(tmp).problems[0]!.message,
      /the settings file is a directory, not a file of settings; move it away/,
    );
    assert.equal(readSettingsFile(tmp).unreadable, true);
    const f = join(tmp, 'v.yaml');
    writeFileSync(f, 'port: 1234\n');
    assert.deepEqual(readSettingsFile(f).values, { port: 1234 });
  });
});

describe('quiet.hours and quiet.microphone', () => {
  test('a window is two different 24-hour times, across midnight or not; "" is none', () => {
    assert.deepEqual(parseQuietHours('22:00-07:00'), { start: 1320, end: 420 });
    assert.deepEqual(parseQuietHours(' 9:30 - 12:00 '), { start: 570, end: 720 });
    for (const bad of ['22:00', '24:00-07:00', '22:00-22:00', '10pm-7am', '22:60-07:00'])
      assert.equal(parseQuietHours(bad), undefined, bad);
    assert.equal(checkSetting('quiet.hours', '', 'x'), undefined);
    assert.equal(checkSetting('quiet.hours', '22:00-07:00', 'x'), undefined);
    assert.ok(checkSetting('quiet.hours', '22-7', 'x'));
    assert.equal(SETTINGS_DEFAULTS['quiet.hours'], '');
  });

  test('the microphone watch is auto or off; a typo gets the closest', () => {
    assert.equal(SETTINGS_DEFAULTS['quiet.microphone'], 'auto');
    assert.equal(checkSetting('quiet.microphone', 'off', 'x'), undefined);
    assert.match(checkSetting('quiet.microphone', 'of', 'x')!.message, /did you mean "off"/);
  });
});
