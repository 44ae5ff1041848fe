/**
 * `vox doctor` on a host linked with `vox remote` (docs/remote.md): the link,
 * the other host's voxd through it (reachability and version come from the
 * daemon checks, which ask through the link) and the token the link holds.
 * On such a host sound plays on the other one, so doctor runs none of the
 * local audio, engine, voice-input or service checks (doctor.ts).
 */
import { linkPath } from '../remote/link.js';
import type { LinkState } from '../remote/link-state.js';
import { modeOf, octal, type Check, type DaemonView } from './check.js';

export function remoteChecks(s: LinkState | undefined): Check[] {
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

/** The token of the link (remote.json): private to this user, and accepted by the other host's voxd. */
export function linkTokenCheck(env: NodeJS.ProcessEnv, s: LinkState, view: DaemonView): Check {
  const path = linkPath(env);
  const mode = modeOf(path);
  if (mode !== undefined && process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return {
      name: 'token',
      level: 'fail',
      detail: `${path} holds ${s.host}'s token and has mode ${octal(mode)}: other users can read it`,
      fix: `chmod 600 "${path}"`,
    };
  }
  if (view.statusCode === 401 || view.statusCode === 403) {
    return {
      name: 'token',
      level: 'fail',
      detail: `voxd on ${s.host} refused the link's token in ${path} (HTTP ${view.statusCode}): its token changed`,
      fix: `run "vox remote connect ${s.host}" again: it fetches the token anew`,
    };
  }
  if (view.status)
    return {
      name: 'token',
      level: 'ok',
      detail: `${s.host}'s token, in ${path}${mode !== undefined ? ` (mode ${octal(mode)})` : ''}, accepted by voxd on ${s.host} through the link`,
    };
  return {
    name: 'token',
    level: 'skip',
    detail: `not checked: voxd on ${s.host} does not answer through the link (the "remote link" line)`,
  };
}
