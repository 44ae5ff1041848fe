/**
 * The small Node scripts .ci/run relies on (scripts/ci/*), run for real on
 * inputs that pass and inputs that must fail: CI's checks are only as good as
 * their ability to say no.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, removeDir, tempDir, waitFor } from '../helpers/daemon.js';
import { CLAUDE, claudeSkip } from '../helpers/claude-code.js';

function run(script: string, args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/ci', script), ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function withDir(fn: (dir: string) => void): void {
  const dir = tempDir('vox-ci-scripts-');
  try {
    fn(dir);
  } finally {
    removeDir(dir);
  }
}

describe("readme-command.mjs: the README's set-up commands, as the README writes them", () => {
  test('each is the whole of the one-line sh block after its heading in README.md', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const [which, heading] of [
      ['install', 'Install and speak'],
      ['setup', 'Put vox on PATH'],
      ['test', 'Run every test'],
    ] as const) {
      const r = run('readme-command.mjs', [which]);
      assert.equal(r.status, 0, r.stderr);
      const command = r.stdout.replace(/\n$/, '');
      // Found independently: the heading's line, then the block right after it.
      const after = readme.slice(readme.indexOf(`\n${heading}`) + 1);
      assert.ok(after.startsWith(heading), `README.md has a line starting "${heading}"`);
      assert.equal(/```sh\n([^]*?)```/.exec(after)?.[1], `${command}\n`, `the ${which} block is exactly "${command}"`);
    }
    assert.equal(run('readme-command.mjs', ['test']).stdout, 'npm test\n', 'the README promises `npm test`');
    assert.equal(
      run('readme-command.mjs', ['setup']).stdout,
      'npx vox setup\n',
      'the README puts vox on PATH with `npx vox setup`',
    );
  });

  test('a README without the heading, or whose block grew a second line, fails and says why', () => {
    withDir((dir) => {
      const file = join(dir, 'README.md');
      writeFileSync(file, '# x\n\nInstall it:\n\n```sh\nnpm install\n```\n');
      let r = run('readme-command.mjs', ['install', file]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /has no ```sh block after a line starting "Install and speak"/);
      writeFileSync(file, '# x\n\nRun every test:\n\n```sh\nnpm ci\nnpm test\n```\n');
      r = run('readme-command.mjs', ['test', file]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /holds 2 lines; CI runs it as one command, so it must hold exactly one/);
      assert.equal(r.stdout, '');
      assert.equal(run('readme-command.mjs', ['speak']).status, 2, 'an unknown command is a usage error');
    });
  });
});

describe('check-engines.mjs: engines.node against the Node lines CI tests', () => {
  test('this repository agrees', () => {
    const r = run('check-engines.mjs', []);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^engines\.node "\^22 \|\| \^24 \|\| \^26" in \d+ package\.json files; CI tests Node 22, 24, 26\n$/,
    );
  });

  test('a package that claims a line CI does not test fails, named', () => {
    withDir((dir) => {
      mkdirSync(join(dir, 'scripts/ci'), { recursive: true });
      mkdirSync(join(dir, 'packages/a'), { recursive: true });
      mkdirSync(join(dir, 'packages/b'), { recursive: true });
      writeFileSync(join(dir, 'scripts/ci/node-lines'), '# lines\n22\n24\n');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ engines: { node: '^22 || ^24' } }));
      writeFileSync(join(dir, 'packages/a/package.json'), JSON.stringify({ engines: { node: '>=22' } }));
      writeFileSync(join(dir, 'packages/b/package.json'), JSON.stringify({}));
      const r = run('check-engines.mjs', [dir]);
      assert.equal(r.status, 1);
      assert.match(
        r.stderr,
        /packages\/a\/package\.json has engines\.node ">=22"; CI tests Node 22, 24, so it must be "\^22 \|\| \^24"/,
      );
      assert.match(r.stderr, /packages\/b\/package\.json has engines\.node undefined/);
      assert.doesNotMatch(r.stderr, /^check-engines: package\.json /m);
    });
  });
});

describe('apt-source.mjs: the mirror and suite the fresh root is built from', () => {
  test('the first main archive of the deb822 and one-line sources, not security, updates or a disabled one', () => {
    withDir((dir) => {
      mkdirSync(join(dir, 'sources.list.d'));
      writeFileSync(
        join(dir, 'sources.list.d/a.sources'),
        [
          'Types: deb\nURIs: http://security.example/debian-security\nSuites: trixie-security\nComponents: main',
          'Types: deb\nURIs: http://off.example/debian\nSuites: trixie\nEnabled: no',
          'Types: deb-src\nURIs: http://src.example/debian\nSuites: trixie',
          'Types: deb\n# a comment\nURIs: http://mirror.example/debian\nSuites: trixie-updates trixie\nComponents: main',
        ].join('\n\n'),
      );
      let r = run('apt-source.mjs', [dir]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, 'http://mirror.example/debian trixie\n');
      // The one-line format, with options, comes first (sources.list).
      writeFileSync(
        join(dir, 'sources.list'),
        '# deb http://commented.example/debian sid main\ndeb [arch=amd64] http://old.example/debian bookworm main\n',
      );
      r = run('apt-source.mjs', [dir]);
      assert.equal(r.stdout, 'http://old.example/debian bookworm\n');
    });
  });

  test('no archive at all fails, naming where it looked', () => {
    withDir((dir) => {
      writeFileSync(
        join(dir, 'sources.list'),
        'deb http://security.debian.org/debian-security bookworm-security main\n',
      );
      const r = run('apt-source.mjs', [dir]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^apt-source: no Debian archive source in .*sources\.list/);
    });
  });
});

describe("pcm-check.mjs: speech in the fresh root's ALSA capture, not silence", () => {
  /** s16le mono 22050 Hz: `ms` of silence, then `toneMs` of a 440 Hz tone at `amp` of full scale, then silence. */
  function capture(file: string, toneMs: number, amp: number, padMs = 200): void {
    const rate = 22050;
    const pad = Math.round((padMs / 1000) * rate);
    const tone = Math.round((toneMs / 1000) * rate);
    const buf = Buffer.alloc((2 * pad + tone) * 2);
    for (let i = 0; i < tone; i++)
      buf.writeInt16LE(Math.round(amp * 32767 * Math.sin((2 * Math.PI * 440 * i) / rate)), (pad + i) * 2);
    writeFileSync(file, buf);
  }
  const args = (file: string) => [file, '--rate', '22050', '--channels', '1', '--min-ms', '400', '--max-ms', '5000'];

  test('a second of sound passes, with its duration measured between the silences', () => {
    withDir((dir) => {
      capture(join(dir, 'c.raw'), 1000, 0.3);
      const r = run('pcm-check.mjs', args(join(dir, 'c.raw')));
      assert.equal(r.status, 0, r.stderr);
      const stats = JSON.parse(/: (\{.*\}) \(/.exec(r.stdout)![1]!);
      assert.ok(Math.abs(stats.durationMs - 1000) <= 2, `duration ${stats.durationMs}`);
      assert.ok(Math.abs(stats.totalMs - 1400) <= 2, `total ${stats.totalMs}`);
      assert.ok(Math.abs(stats.rms - 0.3 / Math.SQRT2) < 0.01, `rms ${stats.rms}`);
      assert.ok(Math.abs(stats.peak - 0.3) < 0.01, `peak ${stats.peak}`);
    });
  });

  test('silence, a faint hum, a blip that is too short and a missing file all fail, saying why', () => {
    withDir((dir) => {
      const f = join(dir, 'c.raw');
      writeFileSync(f, Buffer.alloc(22050 * 2));
      let r = run('pcm-check.mjs', args(f));
      assert.equal(r.status, 1);
      assert.match(
        r.stderr,
        /not speech: duration 0 ms is outside 400\.\.5000 ms; RMS 0\.0000 is silence.*peak 0\.0000 is silence.*only 0 ms above 1%/,
      );
      capture(f, 1000, 0.02);
      r = run('pcm-check.mjs', args(f));
      assert.equal(r.status, 1);
      assert.match(r.stderr, /peak 0\.0200 is silence \(floor 0\.05\)/);
      capture(f, 100, 0.5);
      r = run('pcm-check.mjs', args(f));
      assert.equal(r.status, 1);
      assert.match(r.stderr, /duration 100 ms is outside 400\.\.5000 ms/);
      r = run('pcm-check.mjs', args(join(dir, 'none.raw')));
      assert.equal(r.status, 1);
      assert.match(r.stderr, /cannot read the capture .*none\.raw: ENOENT/);
    });
  });
});

describe('scripts/ci/lib.sh: steps are bounded, timed, and stopped with the run', () => {
  const lib = join(ROOT, 'scripts/ci/lib.sh');
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  // .ci/run runs on Linux, where bash and GNU timeout come with the base system.
  test(
    'each step prints and records its time and verdict: ok, FAILED with its exit code, TIMED OUT at its limit',
    { skip: process.platform !== 'linux' && 'CI runs on Linux (GNU timeout)' },
    () => {
      withDir((dir) => {
        const times = join(dir, 'times');
        const r = spawnSync(
          'bash',
          [
            '-c',
            `. "${lib}"; trap times_table EXIT; step 1m "fine" true; step 1m "broken" bash -c 'exit 3' || echo "broken: $?"; step 1s "slow" sleep 30 || echo "slow: $?"`,
          ],
          {
            encoding: 'utf8',
            env: { ...process.env, VOX_CI_TIMES: times },
            timeout: 60_000,
          },
        );
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^broken: 3\nslow: 124\n::: time per step\n/);
        // Seconds vary with the machine's load; the names, order and verdicts do not.
        assert.match(
          r.stdout,
          /\s+\d+s {2}fine\s+ok\n\s+\d+s {2}broken\s+FAILED \(exit 3\)\n\s+\d+s {2}slow\s+TIMED OUT after 1s\n$/,
        );
        assert.match(
          r.stderr,
          /::: fine\n::: fine: \d+s ok\n::: broken\n::: broken: \d+s FAILED \(exit 3\)\n::: slow\n::: slow: \d+s TIMED OUT after 1s\n/,
        );
        assert.equal(readFileSync(times, 'utf8').split('\n').filter(Boolean).length, 3);
      });
    },
  );

  test(
    "failed_tests prints each test step's failed tests under its name, skips a step with none, and is silent without the folder",
    { skip: process.platform !== 'linux' && 'CI runs on Linux' },
    () => {
      withDir((dir) => {
        const script = `. "${lib}"; f=$(failures_file "node 22"); printf '✖ a.test.ts: it broke\\n' > "$f"; : > "$(failures_file "node 24")"; failed_tests`;
        const r = spawnSync('bash', ['-c', script], {
          encoding: 'utf8',
          env: { ...process.env, VOX_CI_FAILURES: dir },
          timeout: 30_000,
        });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout, '::: failed tests: node_22\n✖ a.test.ts: it broke\n');
        const none = spawnSync('bash', ['-c', `. "${lib}"; failed_tests`], {
          encoding: 'utf8',
          env: { ...process.env, VOX_CI_FAILURES: '' },
          timeout: 30_000,
        });
        assert.equal(none.status, 0, none.stderr);
        assert.equal(none.stdout, '');
      });
    },
  );

  test(
    'a run killed mid-step ends that step too (its timeout has a process group of its own), through stop_steps in the EXIT trap',
    { skip: process.platform !== 'linux' && 'reads /proc' },
    async () => {
      const dir = tempDir('vox-ci-scripts-');
      let pid = 0;
      try {
        const pidFile = join(dir, 'pid');
        const { spawn } = await import('node:child_process');
        const run = spawn(
          'bash',
          [
            '-c',
            `. "${lib}"; trap 'stop_steps; times_table' EXIT; step 5m "long" bash -c 'sleep 300 & echo $! > "${pidFile}"; wait'`,
          ],
          {
            env: { ...process.env, VOX_CI_TIMES: join(dir, 'times') },
            stdio: 'ignore',
          },
        );
        const closed = new Promise((r) => run.once('close', r));
        const deadline = Date.now() + 20_000;
        while (!pid && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          try {
            pid = Number(readFileSync(pidFile, 'utf8'));
          } catch {
            // not yet
          }
        }
        assert.ok(pid > 0 && alive(pid), 'the step started its sleep');
        run.kill('SIGTERM');
        await closed;
        const gone = Date.now() + 10_000;
        while (alive(pid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
        assert.equal(alive(pid), false, `the step's sleep (pid ${pid}) ended with the run`);
      } finally {
        if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
        removeDir(dir);
      }
    },
  );
});

describe('without.sh: the suite as a machine where an optional dependency did not install', () => {
  const without = (dir: string, glob: string, cmd: string) => {
    const r = spawnSync('bash', [join(ROOT, 'scripts/ci/without.sh'), 'fake-tool', glob, cmd], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, TMPDIR: dir },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const modules = (dir: string) => readdirSync(join(dir, 'node_modules')).sort();

  test('the packages are gone while the command runs, VOX_TEST_ABSENT names the tool, and they are back after a failure', () => {
    withDir((dir) => {
      for (const p of ['fake-a', 'fake-b', 'kept']) mkdirSync(join(dir, 'node_modules', p), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'fake-a', 'index.js'), 'x');
      const r = without(dir, 'fake-*', 'ls node_modules; echo "absent=$VOX_TEST_ABSENT"; exit 3');
      assert.equal(r.status, 3, "the command's own exit status");
      assert.equal(r.stdout, 'kept\nabsent=fake-tool\n');
      assert.deepEqual(modules(dir), ['fake-a', 'fake-b', 'kept']);
      assert.equal(readFileSync(join(dir, 'node_modules', 'fake-a', 'index.js'), 'utf8'), 'x');
      assert.deepEqual(
        readdirSync(dir).filter((n) => n.startsWith('vox-ci-without.')),
        [],
        'its holding directory is removed',
      );
    });
  });

  test('nothing to move aside is an error: the job would not test what it says', () => {
    withDir((dir) => {
      mkdirSync(join(dir, 'node_modules', 'kept'), { recursive: true });
      const r = without(dir, 'fake-*', 'true');
      assert.equal(r.status, 1);
      assert.match(r.stderr, /without: no node_modules\/fake-\* to move aside/);
      assert.deepEqual(modules(dir), ['kept']);
    });
  });
});

describe('claude-check.mjs: the plugin in a real Claude Code, as the fresh root checks it', () => {
  const SAMPLE = [
    '2026-12-02T04:41:28.500Z [DEBUG] MCP server "plugin:vox:vox": Successfully connected (transport: stdio) in 53ms',
    '2026-12-02T04:41:28.583Z [DEBUG] MCP server "plugin:vox:vox": Sending SIGINT to MCP server process',
    '2026-12-02T04:41:28.634Z [DEBUG] MCP server "plugin:vox:vox": MCP server process exited cleanly',
  ];

  test('a log where vox ends on SIGINT passes; one where Claude Code had to send SIGTERM or SIGKILL is named', async () => {
    const { forcedEnds, connected } = await import('../../scripts/ci/claude-check.mjs');
    assert.deepEqual(forcedEnds(SAMPLE.join('\n')), []);
    const killed =
      '2026-12-02T04:41:29.100Z [DEBUG] MCP server "plugin:vox:vox": Sending SIGKILL to MCP server process';
    const termed =
      '2026-12-02T04:41:28.700Z [DEBUG] MCP server "plugin:vox:vox": Sending SIGTERM to MCP server process';
    assert.deepEqual(forcedEnds([...SAMPLE.slice(0, 2), termed, killed].join('\n')), [termed, killed]);
    // Another server's kill is not vox's.
    assert.deepEqual(forcedEnds('MCP server "other": Sending SIGKILL to MCP server process'), []);

    assert.equal(
      connected('Checking MCP server health…\n\nplugin:vox:vox: node /x/plugin/bin/vox.cjs mcp - ✔ Connected\n'),
      true,
    );
    assert.equal(connected('plugin:vox:vox: node /x/plugin/bin/vox.cjs mcp - ✗ Failed to connect\n'), false);
    assert.equal(connected('vox: vox mcp - ✔ Connected\n'), false, 'a server registered by hand is not the plugin');
    assert.equal(connected('No MCP servers configured.\n'), false);
  });

  test(
    'with no plugin installed it fails, saying the server is not connected',
    { skip: claudeSkip, timeout: 120_000 },
    () => {
      withDir((home) => {
        const bin = join(home, 'bin');
        mkdirSync(bin);
        symlinkSync(CLAUDE!, join(bin, 'claude'));
        const r = spawnSync(process.execPath, [join(ROOT, 'scripts/ci/claude-check.mjs')], {
          encoding: 'utf8',
          timeout: 100_000,
          cwd: home,
          env: { HOME: home, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, LANG: 'C.UTF-8' },
        });
        assert.equal(r.status, 1, r.stdout + r.stderr);
        assert.match(r.stderr, /claude-check: claude mcp list does not show plugin:vox:vox connected/);
      });
    },
  );
});

describe('npm-ci.sh: npm ci installs cleanly and within the size budget', () => {
  /** npm-ci.sh in `dir` with a stand-in npm whose `ci` prints `output` and writes `mb` MB into node_modules. */
  function npmCi(dir: string, output: string, mb: number, budget?: number) {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const npm = join(bin, 'npm');
    writeFileSync(
      npm,
      `#!/bin/sh\n[ "$1" = --version ] && { echo 11.0.0; exit 0; }\nmkdir -p node_modules\nhead -c ${mb * 1024 * 1024} /dev/zero > node_modules/blob\nprintf '%s\\n' ${JSON.stringify(output)}\n`,
    );
    chmodSync(npm, 0o755);
    return spawnSync('bash', [join(ROOT, 'scripts/ci/npm-ci.sh')], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
        ...(budget ? { VOX_CI_MODULES_MB: String(budget) } : {}),
      },
    });
  }

  test('a clean install within budget passes and says its size', () => {
    withDir((dir) => {
      const r = npmCi(dir, 'added 205 packages in 20s', 2);
      assert.equal(r.status, 0, r.stderr);
      // du rounds up to whole MB.
      assert.match(r.stdout, /npm-ci: node_modules is [23] MB on disk \(budget 210 MB\)/);
    });
  });

  test('any npm warning fails, shown; so does node_modules over its budget', () => {
    withDir((dir) => {
      const r = npmCi(dir, 'npm warn deprecated inflight@1.0.6: This module is not supported', 1);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /npm-ci: npm printed warnings on Node v\d+.*\nnpm warn deprecated inflight@1\.0\.6/);
    });
    withDir((dir) => {
      const r = npmCi(dir, 'added 1 package', 5, 2);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /npm-ci: node_modules is [56] MB, over its budget of 2 MB/);
    });
  });
});

describe('busy-core.sh: the fresh root runs its suite with one core kept busy', () => {
  const script = join(ROOT, 'scripts/ci/busy-core.sh');
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
    } catch {
      return false;
    }
  };

  test("the loop runs beside the command, ends with it, and the command's exit status is kept", () => {
    const r = spawnSync('bash', [script, 'sh', '-c', 'kill -0 "$VOX_CI_BUSY_PID" && echo "$VOX_CI_BUSY_PID"; exit 3'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 3, r.stderr);
    const busy = Number(r.stdout.trim());
    assert.ok(busy > 0, `the loop ran while the command did: ${r.stdout}`);
    assert.equal(alive(busy), false, 'the loop ended with the command');
  });

  test('signalled mid-command (a step limit): the loop and the command end too', async () => {
    const dir = tempDir('vox-ci-busy-');
    try {
      const pids = join(dir, 'pids');
      const child = spawn('bash', [script, 'sh', '-c', `echo "$VOX_CI_BUSY_PID $$" > ${pids}; exec sleep 600`], {
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const [busy, cmd] = await waitFor(
        () => (existsSync(pids) && readFileSync(pids, 'utf8').trim().split(' ').map(Number)) || undefined,
        20_000,
        'the command to start',
      );
      assert.equal(alive(busy!), true, 'the loop runs');
      child.kill('SIGTERM');
      assert.equal(await exited, 143);
      await waitFor(() => (!alive(busy!) && !alive(cmd!)) || undefined, 10_000, 'the loop and the command to end');
    } finally {
      removeDir(dir);
    }
  });
});
