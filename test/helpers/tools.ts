/**
 * Optional system tools in tests: `test('…', { skip: needTool('aplay') }, …)`.
 *
 * On a developer's machine a missing tool skips the test with a one-line
 * reason. Under CI (`CI=true`), where .ci/run installs every tool, a missing
 * tool throws, so the test file fails and names it: CI never skips silently.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findExecutable } from '@vox/protocol';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Probe {
  /** Why it is missing, or undefined when it is usable. */
  check(): string | undefined;
  /** How to get it on Debian. */
  install: string;
}

/** A program on PATH. */
function onPath(name: string, install: string): Probe {
  return { check: () => (findExecutable(name) ? undefined : `${name} is not on PATH`), install };
}

/** The speaker module's native binding: built at npm install time, and loadable (needs libasound2). */
function speakerProbe(): string | undefined {
  let binding: string;
  try {
    const require = createRequire(join(ROOT, 'packages/voxd/package.json'));
    binding = join(dirname(require.resolve('speaker/package.json')), 'build', 'Release', 'binding.node');
  } catch {
    return 'the speaker module is not installed';
  }
  if (!existsSync(binding)) return 'the speaker module is not built (libasound2-dev was missing at npm install)';
  // Load it in a child: a binding that cannot find libasound.so.2 must not take this process down.
  // Loading opens ALSA's default device, so give it a null one.
  const dir = mkdtempSync(join(tmpdir(), 'vox-speaker-probe-'));
  try {
    writeFileSync(join(dir, 'asound.conf'), 'pcm.!default { type null }\n');
    const env = { ...process.env, ALSA_CONFIG_PATH: join(dir, 'asound.conf') };
    const r = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', binding], {
      encoding: 'utf8',
      env,
      timeout: 20_000,
    });
    return r.status === 0
      ? undefined
      : `the speaker module does not load: ${firstLine(r.stderr || String(r.error ?? r.signal))}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ALSA's runtime library, which audio-io loads (every desktop Linux has it; a minimal root does not). */
function libasoundProbe(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const ldconfig = ['/sbin/ldconfig', '/usr/sbin/ldconfig'].find((p) => existsSync(p));
  if (ldconfig) {
    const r = spawnSync(ldconfig, ['-p'], { encoding: 'utf8', timeout: 20_000 });
    if (r.status === 0) return /\blibasound\.so\.2\b/.test(r.stdout) ? undefined : 'libasound.so.2 is not installed';
  }
  const dirs = [
    '/usr/lib/x86_64-linux-gnu',
    '/usr/lib/aarch64-linux-gnu',
    '/usr/lib64',
    '/usr/lib',
    '/lib/x86_64-linux-gnu',
    '/lib',
  ];
  return dirs.some((d) => existsSync(join(d, 'libasound.so.2'))) ? undefined : 'libasound.so.2 is not installed';
}

/** sherpa-onnx-node, voxd's optional dependency, and its per-platform addon: resolvable from voxd and loadable. */
function sherpaProbe(): string | undefined {
  let main: string;
  try {
    main = createRequire(join(ROOT, 'packages/voxd/package.json')).resolve('sherpa-onnx-node');
  } catch {
    return 'sherpa-onnx-node is not installed';
  }
  // In a child: a broken addon must not take this process down.
  const r = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', main], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return r.status === 0
    ? undefined
    : `sherpa-onnx-node does not load: ${firstLine(r.stderr || String(r.error ?? r.signal))}`;
}

/**
 * script(1) that can open a pseudo-terminal: a container or sandbox may have
 * the program but no /dev/pts to give it, and then every run exits 1.
 */
export function ptyProbe(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!findExecutable('script', env)) return 'script is not on PATH';
  const r = spawnSync('script', ['-qec', 'true', '/dev/null'], {
    encoding: 'utf8',
    env,
    timeout: 20_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status === 0) return undefined;
  const why =
    firstLine(r.stderr || r.stdout || '') ||
    (r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`);
  return `script is on PATH but cannot open a pseudo-terminal here (${why})`;
}

function plistlibProbe(): string | undefined {
  if (!findExecutable('python3')) return 'python3 is not on PATH';
  const r = spawnSync('python3', ['-c', 'import plistlib'], { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 ? undefined : `python3 cannot import plistlib: ${firstLine(r.stderr || String(r.error))}`;
}

const PROBES: Record<string, Probe> = {
  aplay: onPath('aplay', 'apt-get install alsa-utils'),
  arecord: onPath('arecord', 'apt-get install alsa-utils'),
  'espeak-ng': onPath('espeak-ng', 'apt-get install espeak-ng'),
  'systemd-analyze': onPath('systemd-analyze', 'apt-get install systemd'),
  'systemd-socket-activate': onPath('systemd-socket-activate', 'apt-get install systemd'),
  systemctl: onPath('systemctl', 'apt-get install systemd'),
  git: onPath('git', 'apt-get install git'),
  script: {
    check: () => ptyProbe(),
    install: 'apt-get install bsdutils, and a /dev/pts (in a container: mount devpts)',
  },
  prlimit: onPath('prlimit', 'apt-get install util-linux'),
  'dbus-daemon': onPath('dbus-daemon', 'apt-get install dbus'),
  'dbus-send': onPath('dbus-send', 'apt-get install dbus'),
  playerctl: onPath('playerctl', 'apt-get install playerctl'),
  pulseaudio: onPath('pulseaudio', 'apt-get install pulseaudio'),
  pactl: onPath('pactl', 'apt-get install pulseaudio-utils'),
  parec: onPath('parec', 'apt-get install pulseaudio-utils'),
  speaker: { check: speakerProbe, install: 'apt-get install libasound2-dev, then npm ci' },
  python3: onPath('python3', 'apt-get install python3'),
  plistlib: { check: plistlibProbe, install: 'apt-get install python3' },
  libasound2: { check: libasoundProbe, install: 'apt-get install libasound2' },
  'sherpa-onnx': {
    check: sherpaProbe,
    install: 'npm ci: an optional dependency of voxd, prebuilt for Linux x64/arm64, macOS and Windows',
  },
};

const cache = new Map<string, string | false>();

/** Whether CI asked for every tool: CI=true (or any value but 0/false). */
export function inCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = (env.CI ?? '').trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false';
}

/**
 * false when `name` is usable, else a one-line skip reason. Under CI a missing
 * tool throws instead, unless VOX_TEST_ABSENT names it. Names: a program on PATH, or one of the probes above
 * (`speaker`, `plistlib`).
 */
export function needTool(name: string): false | string {
  let missing = cache.get(name);
  if (missing === undefined) {
    const probe = PROBES[name] ?? onPath(name, `install ${name}`);
    const why = probe.check();
    missing = why === undefined ? false : `needs ${name}: ${why} (${probe.install})`;
    cache.set(name, missing);
  }
  if (absentOnPurpose().has(name)) {
    // A CI job that goes without it (an optional dependency that failed to install): it must really be gone.
    if (!missing)
      throw new Error(
        `VOX_TEST_ABSENT names ${name}, but ${name} is usable; the job that runs without it must remove it first`,
      );
    return missing;
  }
  if (missing && inCI()) throw new Error(`CI=true, and this test ${missing}; .ci/run installs it`);
  return missing;
}

/** The tools a run goes without on purpose (`VOX_TEST_ABSENT=a,b`): skipped with their reason even under CI. */
export function absentOnPurpose(env: NodeJS.ProcessEnv = process.env): Set<string> {
  return new Set(
    (env.VOX_TEST_ABSENT ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  );
}

/** The full path of a program that needTool(name) found. */
export function toolPath(name: string): string {
  const path = findExecutable(name);
  if (!path) throw new Error(`${name} is not on PATH`);
  return path;
}

function firstLine(s: string): string {
  return (
    s
      .trim()
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? 'unknown error'
  );
}
