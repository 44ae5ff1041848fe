/**
 * voxd not answering, as said by a command that only looks at it (`vox
 * status`, `vox stop`). Those commands turn autostart off themselves
 * (VOX_NO_AUTOSTART=1 in the environment they pass to the client), so the
 * client's message, which blames that variable and says to unset it, would
 * blame something the user never set: this says what happened instead.
 */
import { ClientError } from '../errors.js';
import { resolveEndpoint } from '../client/endpoint.js';

/** The client's cause, without its sentence about VOX_NO_AUTOSTART; undefined when the cause is that nothing listens. */
function otherCause(message: string): string | undefined {
  if (/connection refused|VOX_NO_AUTOSTART=1 is set/.test(message)) return undefined;
  return (
    /^cannot reach voxd [^:]*: (.*?)\. (?:Start it|Check it)/.exec(message)?.[1] ??
    message.replace(/\s*Start it with[^.]*VOX_NO_AUTOSTART\.?$/, '')
  );
}

/**
 * `err` as the looking command `name` reports it. Unchanged unless it is the
 * client's "unreachable" and the user did not set VOX_NO_AUTOSTART=1 (then the
 * variable is theirs, and naming it is right).
 */
export function daemonDown(err: unknown, name: string, userEnv: NodeJS.ProcessEnv): unknown {
  if (
    !(err instanceof ClientError) ||
    err.code !== 'VOX_ERR_CLIENT_DAEMON_UNREACHABLE' ||
    userEnv.VOX_NO_AUTOSTART === '1'
  )
    return err;
  let at: string | undefined;
  try {
    const e = resolveEndpoint(userEnv);
    if (e) at = `at ${e.host}:${e.port} (from ${e.source})`;
  } catch {
    // the client named the bad VOXD_URL already; this only words it
  }
  const cause = otherCause(err.message);
  const what =
    cause !== undefined
      ? `cannot reach voxd${at ? ` ${at}` : ''}: ${cause}`
      : at
        ? `voxd is not running: nothing answers ${at}`
        : 'voxd is not running (VOX_HOME has no voxd.json)';
  const fix =
    cause === undefined
      ? 'Start it with "vox daemon start" (or any "vox say")'
      : 'Check it with "vox daemon status" and "vox logs"';
  return new ClientError('VOX_ERR_CLIENT_DAEMON_UNREACHABLE', `${what}; "vox ${name}" does not start voxd. ${fix}.`);
}
