/**
 * What the plugin's launch sets for `vox mcp` alone stays with it: the
 * plugin's `.mcp.json` gives the server MALLOC_ARENA_MAX=1 and names it in
 * VOX_MCP_ENV (docs/mcp.md, "Start-up and memory"); a voxd that a client
 * with that environment auto-starts inherits neither, and the rest of the
 * environment is passed on. The real `vox say`, the real voxd it starts, and
 * the started voxd's environment read from /proc (Linux).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, removeHomes, ROOT, tempDir, vox, writeSettings } from '../helpers/daemon.js';

const homes: string[] = [];
after(async () => {
  await removeHomes(homes);
});

test(
  "what the plugin's launch set for vox mcp alone (VOX_MCP_ENV) does not reach the voxd it starts",
  {
    skip: existsSync('/proc/self/environ') ? false : 'needs /proc (Linux)',
  },
  async () => {
    const h = tempDir('vox-launch-env-');
    homes.push(h);
    const env = cleanEnv(h, { VOXD_PORT: '0' });
    writeSettings(env, { audio: `file:${join(h, 'out')}?realtime=0`, engine: 'espeak' });
    const launch = JSON.parse(readFileSync(join(ROOT, 'plugin', '.mcp.json'), 'utf8')).mcpServers.vox.env;
    assert.equal(launch.MALLOC_ARENA_MAX, '1', "the plugin's server runs with one malloc arena");
    const say = await vox(['say', 'hello there'], {
      env: { ...env, ...launch, UV_THREADPOOL_SIZE: '3' },
      timeoutMs: 30_000,
    });
    assert.equal(say.code, 0, say.stderr);
    const { pid } = JSON.parse(readFileSync(join(h, 'voxd.json'), 'utf8'));
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`VOX_HOME=${env.VOX_HOME}`), 'read the right process');
    assert.ok(environ.includes('UV_THREADPOOL_SIZE=3'), 'the rest of the environment is passed on');
    assert.deepEqual(
      environ.filter((kv) => /^(MALLOC_ARENA_MAX|VOX_MCP_ENV)=/.test(kv)),
      [],
      'nothing the launch meant for vox mcp',
    );
  },
);
