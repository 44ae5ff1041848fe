/**
 * `vox doctor`'s line on the vox mod (src/doctor/claude-mod.ts): ok where the
 * Claude Code found has mods and the plugin is enabled; skipped, saying why,
 * for an older version, no plugin, vox's own switch, an organization's
 * managed-mods policy, and hooks turned off.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { managedSettingsFiles, modCheck, MODS_SINCE } from '../../src/doctor/claude-mod.js';
import type { PluginState } from '../../src/claude/plugin-state.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-mod-doctor-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const claude = (version?: string) => ({ path: '/usr/bin/claude', from: 'PATH', version });
const ON: PluginState = { key: 'vox@vox', enabledIn: ['user'], disabledIn: [], active: true };
const OFF: PluginState = { enabledIn: [], disabledIn: [], active: false };
const env = { HOME: tmp, CLAUDE_CONFIG_DIR: join(tmp, 'config') };
let n = 0;
function managed(settings: unknown): string[] {
  const path = join(tmp, `managed-${n++}.json`);
  writeFileSync(path, JSON.stringify(settings));
  return [path];
}

describe("vox doctor's line on the vox mod", () => {
  test(`loads with Claude Code ${MODS_SINCE} and later and the plugin enabled`, () => {
    for (const version of [MODS_SINCE, '2.1.332', '2.2.0']) {
      const c = modCheck(claude(version), ON, env, []);
      assert.equal(c.level, 'ok', version);
      assert.equal(c.name, 'claude mod');
      assert.match(
        c.detail,
        new RegExp(`^Claude Code ${version.replace(/\./g, '\\.')} loads the vox mod .*not under --safe-mode`),
      );
    }
  });

  test('skipped, with the reason: older Claude Code, none, an unknown version, no plugin, VOX_CLAUDE_MOD=off', () => {
    const skipped = (c: ReturnType<typeof modCheck>, re: RegExp) => {
      assert.equal(c.level, 'skip');
      assert.match(c.detail, re);
    };
    skipped(
      modCheck(claude('2.1.286'), ON, env, []),
      /^the vox mod is skipped: Claude Code 2\.1\.286 has no mods \(2\.1\.287 and later\)/,
    );
    skipped(modCheck(undefined, ON, env, []), /Claude Code is not installed/);
    skipped(modCheck(claude(undefined), ON, env, []), /version of \/usr\/bin\/claude is unknown/);
    skipped(modCheck(claude('2.1.332'), OFF, env, []), /the vox plugin is not installed and enabled/);
    skipped(modCheck(claude('2.1.332'), ON, { ...env, VOX_CLAUDE_MOD: 'off' }, []), /VOX_CLAUDE_MOD=off/);
  });

  test("an organization's managed settings: allowManagedModsOnly, disableAllHooks; the user's disableAllHooks", () => {
    const only = managed({ pluginConfigs: { 'org-policy@acme': { options: { allowManagedModsOnly: true } } } });
    assert.match(
      modCheck(claude('2.1.332'), ON, env, only).detail,
      /allows only its own mods \(allowManagedModsOnly in /,
    );
    const hooksOff = managed({ disableAllHooks: true });
    assert.match(modCheck(claude('2.1.332'), ON, env, hooksOff).detail, /turned hooks off/);
    assert.equal(modCheck(claude('2.1.332'), ON, env, managed({ pluginConfigs: {} })).level, 'ok');
    assert.equal(modCheck(claude('2.1.332'), ON, env, [join(tmp, 'absent.json')]).level, 'ok');
    assert.equal(modCheck(claude('2.1.332'), ON, env, managed('not an object')).level, 'ok');
    mkdirSync(env.CLAUDE_CONFIG_DIR);
    writeFileSync(join(env.CLAUDE_CONFIG_DIR, 'settings.json'), '{"disableAllHooks": true}');
    assert.match(
      modCheck(claude('2.1.332'), ON, env, []).detail,
      /hooks are off \(disableAllHooks in .*settings\.json\)/,
    );
  });

  test('where the managed settings are', () => {
    assert.deepEqual(managedSettingsFiles('linux'), ['/etc/claude-code/managed-settings.json']);
    assert.deepEqual(managedSettingsFiles('darwin'), ['/Library/Application Support/ClaudeCode/managed-settings.json']);
  });
});
