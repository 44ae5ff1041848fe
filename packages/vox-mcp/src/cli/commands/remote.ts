/**
 * `vox remote connect HOST` (on the host whose sessions speak), `vox remote
 * credentials` (run by it over ssh on HOST, where voxd and the speakers are),
 * `vox remote disconnect`. docs/remote.md.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { VERSION, voxHome } from '@vox/protocol';
import { ClientError } from '../../errors.js';
import { readToken, healthAt } from '../../daemon/http.js';
import { resolveEndpoint } from '../../client/endpoint.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';

const USAGE = `Usage: vox remote connect HOST [--as NAME] [--vox CMD] [--ssh-config FILE]
       vox remote disconnect
       vox remote credentials

Speaks through voxd on HOST (its speakers) from this host, over ssh.
  connect HOST       keep an ssh forward to HOST's voxd; reconnects when it drops
  --as NAME          this host's name in session labels (default: the hostname)
  --vox CMD          how to run vox on HOST (default: vox)
  --ssh-config FILE  ssh's -F FILE
  disconnect         forget the link (a running connect ends); clients go local
  credentials        print this host's voxd port, token and version (for connect)
  -h, --help         show this help
`;

export const command = defineCommand({
  name: 'remote',
  usage: USAGE,
  flags: { as: { type: 'string' }, vox: { type: 'string' }, 'ssh-config': { type: 'string' } },
  maxArgs: 2,
  async run({ ctx, flags, args }) {
    const [action, host] = args;
    if (action === 'credentials') {
      const { startDaemon } = await import('../../daemon/autostart.js');
      let endpoint = resolveEndpoint(ctx.env);
      if (endpoint?.remote)
        throw new ClientError(
          'VOX_ERR_CLIENT_USAGE',
          'this host itself speaks through a remote link; run credentials where voxd is',
        );
      if (!endpoint || !(await healthAt(endpoint, 1000))) endpoint = await startDaemon(ctx.env);
      const token = readToken(ctx.env);
      if (!token) throw new ClientError('VOX_ERR_CLIENT_REMOTE_TOKEN', 'voxd here has no token in VOX_HOME/token');
      ctx.stdout.write(
        `${JSON.stringify({ version: VERSION, port: endpoint.port, token, platform: process.platform })}\n`,
      );
      return EXIT.OK;
    }
    if (action === 'disconnect') {
      const [{ removeLink, removeSocket, SOCKET_FILE }, { endOrphanedSsh }] = await Promise.all([
        import('../../remote/link.js'),
        import('../../remote/keeper.js'),
      ]);
      endOrphanedSsh(ctx.env, (line) => ctx.stderr.write(`vox remote: ${line}\n`));
      removeLink(ctx.env);
      // A running keeper removes it too once its ssh ends; one that no longer runs cannot.
      removeSocket(join(voxHome(ctx.env), SOCKET_FILE));
      return EXIT.OK;
    }
    if (action !== 'connect' || !host) {
      ctx.stderr.write(USAGE);
      return EXIT.USAGE;
    }
    if (!/^[A-Za-z0-9_.@:-]+$/.test(host))
      throw new ClientError('VOX_ERR_CLIENT_USAGE', `HOST ${JSON.stringify(host)} is not an ssh destination`);
    const { keepLink } = await import('../../remote/keeper.js');
    const controller = new AbortController();
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => controller.abort());
    const log = (line: string) => ctx.stderr.write(`vox remote: ${line}\n`);
    await keepLink({
      host,
      as: flags.as ?? hostname().split('.')[0]!,
      vox: flags.vox ?? 'vox',
      ...(flags['ssh-config'] ? { sshConfig: flags['ssh-config'] } : {}),
      env: ctx.env,
      log,
      signal: controller.signal,
    });
    return EXIT.OK;
  },
});
export const run = command.run;
