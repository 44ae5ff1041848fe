/** The checks of voxd as the client sees it: whether it answers, its version and engine, the token, its settings file. */
import { readFileSync } from 'node:fs';
import { homePaths, pidAlive, voxHome, type StatusResponse } from '@vox/protocol';
import { request } from '../daemon/http.js';
import { health, resolveEndpoint } from '../client/endpoint.js';
import { modeOf, octal, type Check, type DaemonView } from './check.js';

/** What the client can learn from voxd: health (public), then status (with the token). */
export async function viewDaemon(env: NodeJS.ProcessEnv): Promise<DaemonView> {
  const view: DaemonView = {};
  let endpoint;
  try {
    endpoint = resolveEndpoint(env);
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (!endpoint) return { error: 'no VOX_HOME/voxd.json, VOXD_URL or VOXD_PORT says where voxd is' };
  view.where = endpoint.socketPath
    ? `${endpoint.socketPath} (from remote.json)`
    : `${endpoint.host}:${endpoint.port} (from ${endpoint.source})`;
  if (endpoint.source === 'voxd.json') {
    try {
      view.statePid = (JSON.parse(readFileSync(homePaths(voxHome(env)).state, 'utf8')) as { pid?: number }).pid;
    } catch {
      // gone meanwhile
    }
  }
  view.health = await health(env, 1500);
  if (!view.health) {
    view.error = 'nothing answers there';
    return view;
  }
  try {
    const reply = await request<StatusResponse>(endpoint, 'GET', '/v1/status', undefined, 3000);
    view.statusCode = reply.status;
    if (reply.status === 200) view.status = reply.body;
  } catch (err) {
    view.error = (err as Error).message;
  }
  return view;
}

/** `linkedTo`: the host whose voxd this one reaches through a `vox remote` link, which no client here starts. */
export function daemonChecks(
  env: NodeJS.ProcessEnv,
  view: DaemonView,
  clientVersion: string,
  linkedTo?: string,
): Check[] {
  const checks: Check[] = [];
  const autostart = env.VOX_NO_AUTOSTART !== '1';
  if (!view.health && linkedTo) {
    checks.push({
      name: 'daemon',
      level: 'warn',
      detail: `voxd on ${linkedTo} does not answer through the link${view.where ? ` at ${view.where}` : ''}: speech waits in the spool until it does`,
      fix: `see the "remote link" line; on ${linkedTo}, "vox daemon start" if voxd is not running there`,
    });
    return checks;
  }
  if (!view.health) {
    const stale =
      view.statePid !== undefined && !pidAlive(view.statePid)
        ? `; voxd.json names pid ${view.statePid}, which is not running (a stale file)`
        : '';
    const why = view.where ? `nothing answers at ${view.where}${stale}` : 'not running';
    checks.push({
      name: 'daemon',
      level: autostart ? 'warn' : 'fail',
      detail: autostart
        ? `${why}; the next vox say, hook or MCP call starts it`
        : `${why}, and VOX_NO_AUTOSTART=1 stops clients from starting it`,
      fix: 'start it now with "vox daemon start", or run it as a service with "vox daemon install"',
    });
    return checks;
  }
  const s = view.status;
  checks.push({
    name: 'daemon',
    level: 'ok',
    detail: `reachable at ${view.where}${linkedTo ? `, voxd on ${linkedTo}` : ''}${s ? `, pid ${s.pid}, up ${Math.round(s.uptimeMs / 1000)} s` : ''}`,
  });
  const daemonVersion = view.health.version;
  checks.push(
    daemonVersion === clientVersion
      ? { name: 'daemon version', level: 'ok', detail: `voxd ${daemonVersion}, vox ${clientVersion}` }
      : {
          name: 'daemon version',
          level: 'warn',
          detail: `voxd ${daemonVersion}${linkedTo ? ` on ${linkedTo}` : ''} differs from vox ${clientVersion}`,
          fix: linkedTo
            ? `install the same vox on both hosts, then "vox daemon restart" on ${linkedTo} and "vox remote connect ${linkedTo}" here`
            : 'run "vox daemon restart" so that voxd runs the installed version',
        },
  );
  if (s) {
    checks.push(
      s.engine.ready
        ? { name: 'engine (voxd default)', level: 'ok', detail: `${s.engine.name} ready (as voxd reports it)` }
        : {
            name: 'engine (voxd default)',
            level: 'warn',
            detail: `${s.engine.name} is not ready: ${s.engine.reason ?? 'no reason given'}; speech falls back to the embedded engine`,
            fix: 'see the engine lines below; after adding a key or installing an engine, voxd picks it up (keys.env is re-read), or run "vox daemon restart"',
          },
    );
  }
  return checks;
}

export function tokenCheck(env: NodeJS.ProcessEnv, view: DaemonView, platform: NodeJS.Platform): Check {
  const path = homePaths(voxHome(env)).token;
  const fromEnv = env.VOXD_TOKEN ? ' (VOXD_TOKEN is set and used instead)' : '';
  if (view.statusCode === 401 || view.statusCode === 403) {
    return {
      name: 'token',
      level: 'fail',
      detail: `voxd refused the token${env.VOXD_TOKEN ? ' in VOXD_TOKEN' : ` in ${path}`} (HTTP ${view.statusCode})`,
      fix: env.VOXD_TOKEN
        ? 'unset VOXD_TOKEN, or set it to the contents of VOX_HOME/token'
        : `this VOX_HOME is not the running voxd's: set VOX_HOME as voxd has it, or run "vox daemon restart"`,
    };
  }
  const mode = modeOf(path);
  if (mode === undefined) {
    if (view.health && !env.VOXD_TOKEN) {
      return {
        name: 'token',
        level: 'fail',
        detail: `${path} is missing while voxd runs`,
        fix: 'run "vox daemon restart": voxd creates the token at start',
      };
    }
    return {
      name: 'token',
      level: 'ok',
      detail: `${path} not created yet; voxd creates it (mode 600) when it starts${fromEnv}`,
    };
  }
  if (platform !== 'win32' && (mode & 0o077) !== 0) {
    return {
      name: 'token',
      level: 'fail',
      detail: `${path} has mode ${octal(mode)}: other users can read it and make voxd speak`,
      fix: `chmod 600 "${path}"`,
    };
  }
  return {
    name: 'token',
    level: 'ok',
    detail: `${path}, mode ${octal(mode)}${view.status ? ', accepted by voxd' : ''}${fromEnv}`,
  };
}

/** voxd's settings file: every voxd start reads it, and an invalid one stops voxd. */
export async function settingsCheck(env: NodeJS.ProcessEnv): Promise<Check> {
  const { readSettingsFile, settingsPath, formatProblem } = await import('@vox/protocol/settings');
  const file = readSettingsFile(settingsPath(env));
  if (!file.exists)
    return {
      name: 'daemon settings',
      level: 'ok',
      detail: `none: voxd uses its defaults (${file.path} does not exist)`,
    };
  const n = file.problems.length;
  if (n) {
    return {
      name: 'daemon settings',
      level: 'fail',
      detail: `${file.path} has ${n} problem${n === 1 ? '' : 's'}, so voxd will not start: ${file.problems.map((p) => formatProblem(p).replace(`${file.path}`, 'line')).join('; ')}`,
      fix: 'fix them with "vox daemon config set KEY VALUE" or "vox daemon config unset KEY" (docs/operations.md lists every setting)',
    };
  }
  const set = Object.entries(file.values).map(([k, v]) => `${k} ${v}`);
  return {
    name: 'daemon settings',
    level: 'ok',
    detail: `${file.path} is valid${set.length ? ` (${set.join(', ')})` : ' (empty: defaults)'}`,
  };
}
