/**
 * The engine checks. The client never imports daemon code, so it sees engines
 * the way it can: cloud keys by presence (environment or VOX_HOME/keys.env,
 * never printing a value), system engines by their binary on PATH, the
 * embedded engine by its package being installed beside voxd. voxd's own
 * environment may differ (a service has its own), which the details say.
 */
import { readFileSync } from 'node:fs';
import { CLOUD_ENGINES, homePaths, parseKeysFile, voxHome } from '@vox/protocol';
import { listModels } from '@vox/protocol/models';
import { modeOf, octal, type Check, type DoctorOptions, type ProbeResult } from './check.js';

/** Keys present in a keys.env text (names only) and the numbers of lines that are not KEY=value. */
function keyNames(text: string): { names: Set<string>; badLines: number[] } {
  const { values, badLines } = parseKeysFile(text);
  return { names: new Set(values.keys()), badLines };
}

/** The engine sherpa: its module, and the voice models installed in VOX_HOME/models. */
function sherpaCheck(env: NodeJS.ProcessEnv, selected: Set<string>, module: () => ProbeResult): Check {
  const models = listModels(voxHome(env));
  const usable = models.filter((m) => m.ok).map((m) => (m.ok ? m.manifest.name : ''));
  const damaged = models.filter((m): m is Extract<typeof m, { ok: false }> => !m.ok);
  const mod = module();
  if (damaged.length) {
    const m = damaged[0]!;
    return {
      name: 'engine sherpa',
      level: 'warn',
      detail: `model ${m.name} is not usable: ${m.reason}`,
      fix: `vox voices install ${m.name} --force`,
    };
  }
  if (usable.length && !mod.ok) {
    return {
      name: 'engine sherpa',
      level: 'warn',
      detail: `${usable.join(', ')} installed, but ${mod.detail}; speech uses eSpeak`,
      fix: 'run "npm install" in the vox checkout (sherpa-onnx-node installs with it where a prebuilt package exists)',
    };
  }
  if (usable.length) return { name: 'engine sherpa', level: 'ok', detail: `voice models: ${usable.join(', ')}` };
  const why = `no voice model is installed${mod.ok ? '' : `, and ${mod.detail}`}`;
  return selected.has('sherpa')
    ? {
        name: 'engine sherpa',
        level: 'warn',
        detail: `chosen but not ready: ${why}; speech falls back to the embedded engine`,
        fix: '"vox voices list" shows the models; "vox voices install NAME" installs one',
      }
    : { name: 'engine sherpa', level: 'ok', detail: `not set up (optional): ${why} ("vox voices install NAME")` };
}

export function engineChecks(
  opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which' | 'embeddedEngine' | 'sherpaModule'>>,
  selected: Set<string>,
): Check[] {
  const { env, platform } = opts;
  const checks: Check[] = [];
  const note = ' (as this shell sees it; voxd reads its own environment)';
  const embedded = opts.embeddedEngine();
  checks.push(
    embedded.ok
      ? { name: 'engine espeak', level: 'ok', detail: embedded.detail }
      : {
          name: 'engine espeak',
          level: 'fail',
          detail: `${embedded.detail}: voxd has no engine to fall back on`,
          fix: 'run "npm install" in the vox checkout, then "npm run build"',
        },
  );

  const notReady = (name: string, why: string, fix: string): Check =>
    selected.has(name)
      ? {
          name: `engine ${name}`,
          level: 'warn',
          detail: `chosen but not ready: ${why}; speech falls back to the embedded engine`,
          fix,
        }
      : { name: `engine ${name}`, level: 'ok', detail: `not set up (optional): ${why}` };

  const espeakNg = opts.which('espeak-ng', env);
  checks.push(
    espeakNg
      ? { name: 'engine espeak-ng', level: 'ok', detail: `${espeakNg}${note}` }
      : notReady(
          'espeak-ng',
          'espeak-ng is not on PATH',
          'install it: "apt-get install espeak-ng" or "brew install espeak-ng"',
        ),
  );
  if (platform === 'darwin') {
    const say = opts.which('say', env);
    checks.push(
      say
        ? { name: 'engine say', level: 'ok', detail: say }
        : notReady('say', 'say is not on PATH', 'say ships with macOS: check PATH'),
    );
  } else {
    checks.push(
      selected.has('say')
        ? notReady('say', `macOS only (this is ${platform})`, 'choose another engine in .vox/config.md, or "auto"')
        : { name: 'engine say', level: 'ok', detail: `macOS only; not used on ${platform}` },
    );
  }

  checks.push(sherpaCheck(env, selected, opts.sherpaModule));

  const keysPath = homePaths(voxHome(env)).keys;
  let fileKeys = new Set<string>();
  let keysText: string | undefined;
  try {
    keysText = readFileSync(keysPath, 'utf8');
  } catch {
    // no keys file: fine
  }
  if (keysText !== undefined) {
    const parsed = keyNames(keysText);
    fileKeys = parsed.names;
    const mode = modeOf(keysPath);
    if (platform !== 'win32' && mode !== undefined && (mode & 0o077) !== 0) {
      checks.push({
        name: 'keys file',
        level: 'warn',
        detail: `${keysPath} has mode ${octal(mode)}: other users may read your API keys`,
        fix: `chmod 600 "${keysPath}"`,
      });
    } else if (parsed.badLines.length) {
      checks.push({
        name: 'keys file',
        level: 'warn',
        detail: `${keysPath}: line ${parsed.badLines.join(', ')} not KEY=value; ignored`,
        fix: 'write one NAME=value per line',
      });
    } else {
      checks.push({
        name: 'keys file',
        level: 'ok',
        detail: `${keysPath}, mode ${mode === undefined ? '?' : octal(mode)}`,
      });
    }
  }
  for (const { name: engine, key } of CLOUD_ENGINES) {
    if (env[key]?.trim())
      checks.push({ name: `engine ${engine}`, level: 'ok', detail: `${key} is set in the environment${note}` });
    else if (fileKeys.has(key))
      checks.push({ name: `engine ${engine}`, level: 'ok', detail: `${key} is set in ${keysPath}` });
    else
      checks.push(
        notReady(
          engine,
          `${key} is not set (environment or ${keysPath})`,
          `add "${key}=..." to ${keysPath} (chmod 600); voxd re-reads it`,
        ),
      );
  }
  return checks;
}
