/** `vox doctor`'s line for a remote link (docs/remote.md): none unless this host has one. */
import { linkState } from '../remote/link-state.js';
import type { Check } from './check.js';

export async function remoteChecks(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const s = await linkState(env, 1500);
  if (!s) return [];
  const spool = s.spool.entries
    ? `; ${s.spool.entries} request(s) (${s.spool.bytes} bytes) wait in the spool`
    : '; the spool is empty';
  const where = `to voxd on ${s.host} as ${s.as} through ${s.socket}`;
  if (s.keeper && !s.keeper.running) {
    return [
      {
        name: 'remote link',
        level: 'fail',
        detail: `linked ${where}, but its keeper (pid ${s.keeper.pid}) is not running, so the link stays ${s.connected ? 'up only until ssh ends' : 'down'}${spool}`,
        fix: `run "vox remote connect ${s.host}" (or "vox remote disconnect" to use a local voxd)`,
      },
    ];
  }
  if (!s.connected) {
    return [
      {
        name: 'remote link',
        level: 'warn',
        detail: `linked ${where}, but the tunnel does not answer; the keeper reconnects by itself${spool}`,
        fix: `check that ssh ${s.host} works and that voxd runs there; the keeper's output says why it drops`,
      },
    ];
  }
  return [
    {
      name: 'remote link',
      level: 'ok',
      detail: `connected ${where}${s.keeper ? ` (keeper pid ${s.keeper.pid})` : ''}${spool}`,
    },
  ];
}
