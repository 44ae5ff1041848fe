/**
 * V8's tiering in voxd (tiering.ts): TurboFan off where Maglev is on. Each
 * case runs a fresh Node (flags are per process) that imports the module
 * and asks V8 which optimizing compilers it may use (%IsTurbofanEnabled,
 * %IsMaglevEnabled: the flags as V8 reads them, not a timing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const tiering = fileURLToPath(new URL('../src/tiering.ts', import.meta.url));
/** Node 22's V8 (12) has Maglev off; Node 24's (13) and later have it on. */
const v8Major = Number(process.versions.v8.split('.')[0]);

/** The optimizing compilers V8 may use in a fresh process that loaded tiering.ts, with `env` added. */
function compilers(env: Record<string, string> = {}): { turbofan: boolean; maglev: boolean } {
  const script = `
    await import(${JSON.stringify(tiering)});
    console.log(JSON.stringify({ turbofan: %IsTurbofanEnabled(), maglev: %IsMaglevEnabled() }));`;
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--allow-natives-syntax', '--input-type=module', '-e', script],
    { env: { ...process.env, VOXD_TURBOFAN: '', ...env }, encoding: 'utf8' },
  );
  return JSON.parse(out) as { turbofan: boolean; maglev: boolean };
}

test(
  'voxd runs without TurboFan, with Maglev (Node 24 and later)',
  { skip: v8Major < 13 && 'Node 22: Maglev is off' },
  () => {
    assert.deepEqual(compilers(), { turbofan: false, maglev: true });
  },
);

test('on Node 22, where Maglev is off, TurboFan stays on', { skip: v8Major >= 13 && 'Maglev is on' }, () => {
  assert.deepEqual(compilers(), { turbofan: true, maglev: false });
});

test('VOXD_TURBOFAN=1 leaves TurboFan on (the check above can fail)', () => {
  assert.equal(compilers({ VOXD_TURBOFAN: '1' }).turbofan, true);
});
