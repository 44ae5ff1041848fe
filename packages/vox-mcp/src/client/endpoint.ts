/**
 * Where voxd is, wherever it is: this host's (daemon/http.ts: VOXD_URL,
 * VOXD_PORT, voxd.json), else the remote link's (remote/link.ts). The link
 * file is looked at only when nothing local says where: a host with a link
 * runs no voxd (`vox remote connect` refuses while one runs), and a linked
 * client never reads VOX_HOME/token, which the link's replaces.
 */
import type { HealthResponse } from '@vox/protocol';
import { healthAt, localEndpoint, type Endpoint } from '../daemon/http.js';
import { linkEndpoint } from '../remote/link.js';

/** This host's voxd, else the remote link; undefined when none says where. */
export function resolveEndpoint(env: NodeJS.ProcessEnv): Endpoint | undefined {
  return localEndpoint(env) ?? linkEndpoint(env);
}

/** GET /v1/health; undefined when nothing answers, or something that is not voxd. */
export async function health(env: NodeJS.ProcessEnv, timeoutMs = 1000): Promise<HealthResponse | undefined> {
  const endpoint = resolveEndpoint(env);
  if (!endpoint) return undefined;
  return healthAt(endpoint, timeoutMs);
}
