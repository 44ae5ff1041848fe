/**
 * The token repair layer: voxd refused the token (401, 403) and the token
 * file is why (spoiled, unreadable): the running voxd rewrites a spoiled
 * token file when it sees the change, else within 2 s (voxd's
 * access/keeper.ts), so read it again until it is whole and send once more.
 * Past that, an error that names the file and the fix.
 */
import { ClientError } from '../errors.js';
import { tokenFile, type Endpoint, type Reply } from './http.js';
import { timeLeft, type CallRequest, type Layer } from './send.js';

/** How long a call waits for the running voxd to rewrite a spoiled token file: its periodic look (2 s) and a margin. */
export const TOKEN_HEAL_MS = 2500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const tokenRepair: Layer =
  (next) =>
  async <T>(req: CallRequest): Promise<Reply<T>> => {
    const reply = await next<T>(req);
    const at = req.endpoint!;
    const badToken = tokenRefused(reply, at);
    if (!badToken) return reply;
    // Under load the rewrite can take a while: look every 100 ms, within the call's deadline.
    const until = Math.min(req.deadline, Date.now() + TOKEN_HEAL_MS);
    for (;;) {
      await sleep(Math.min(100, timeLeft(req, 100)));
      const again = withToken(at, req.env);
      if (again.token && !again.tokenProblem) return next<T>({ ...req, endpoint: again });
      if (Date.now() >= until) throw badToken;
    }
  };

/** The endpoint with the token read now (a voxd that just started may have written a new one). */
export function withToken(endpoint: Endpoint, env: NodeJS.ProcessEnv): Endpoint {
  const { token, problem } = tokenFile(env);
  const { tokenProblem: _old, ...rest } = endpoint;
  return { ...rest, token, ...(problem ? { tokenProblem: problem } : {}) };
}

/** voxd refused the token and the token file is why: say so, with the fix. */
function tokenRefused(reply: Reply<unknown>, endpoint: Endpoint): ClientError | undefined {
  if ((reply.status !== 401 && reply.status !== 403) || !endpoint.tokenProblem) return undefined;
  return new ClientError(
    'VOX_ERR_CLIENT_STATE_FILE',
    `voxd refused the call because ${endpoint.tokenProblem}, so this client has no token to send, and the running voxd did not write it again within ${TOKEN_HEAL_MS / 1000} s. Remove it and run "vox daemon restart" (voxd writes a new one).`,
  );
}
