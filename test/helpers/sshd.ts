/**
 * A real sshd on 127.0.0.1 for the `vox remote` tests: its own config, host
 * key and authorized key in `dir`, and an ssh_config naming it "A". Host B is
 * the same user with another VOX_HOME.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './daemon.js';

const SSHD = '/usr/sbin/sshd';

/** Why the remote tests cannot run here, or false; under CI they must. */
export function sshSkip(file: string): string | false {
  const skip =
    existsSync(SSHD) && spawnSync('ssh', ['-V']).status === 0
      ? false
      : 'openssh-server (/usr/sbin/sshd) or ssh is not installed';
  if (skip && process.env.CI === 'true') throw new Error(`${file} needs sshd under CI: ${skip}`);
  return skip;
}

export interface Sshd {
  /** ssh -F this: host "A" is the sshd. */
  sshConfig: string;
  /** The listening sshd's pid, once started: its sessions are its descendants. */
  pid(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** `extra`: more sshd_config lines (e.g. "PermitTTY no"). */
export function sshd(dir: string, portBase: number, extra: string[] = []): Sshd {
  const keys = join(dir, 'keys');
  mkdirSync(keys, { mode: 0o700 });
  mkdirSync('/run/sshd', { recursive: true });
  for (const k of ['host', 'client']) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, k)]);
  writeFileSync(join(keys, 'authorized_keys'), readFileSync(join(keys, 'client.pub')), { mode: 0o600 });
  const port = portBase + (process.pid % 10000);
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(keys, 'host')}`,
      `AuthorizedKeysFile ${join(keys, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'AllowTcpForwarding yes',
      'AllowStreamLocalForwarding yes',
      ...extra,
      '',
    ].join('\n'),
  );
  const sshConfig = join(dir, 'ssh_config');
  writeFileSync(
    sshConfig,
    [
      'Host A',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  IdentityFile ${join(keys, 'client')}`,
      '  IdentitiesOnly yes',
      '  UserKnownHostsFile /dev/null',
      '  StrictHostKeyChecking no',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  let proc: ChildProcess | undefined;
  return {
    sshConfig,
    pid: () => proc?.pid,
    async start() {
      proc = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
      await waitFor(
        () => spawnSync('ssh', ['-F', sshConfig, 'A', 'true'], { timeout: 5000 }).status === 0 || undefined,
        10_000,
        'sshd',
      );
    },
    async stop() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      p.kill('SIGTERM');
      await new Promise((r) => p.once('exit', r));
    },
  };
}

/** `vox remote connect A` on B, its stderr collected; `tunnels()` are the pids of the ssh forwards it has started. */
export interface Keeper {
  proc: ChildProcess;
  log(): string;
  tunnels(): number[];
  stop(): Promise<void>;
}

export function connectKeeper(vox: string, env: NodeJS.ProcessEnv, voxOnA: string, sshConfig: string): Keeper {
  let log = '';
  const proc = spawn(
    process.execPath,
    [vox, 'remote', 'connect', 'A', '--as', 'B', '--vox', voxOnA, '--ssh-config', sshConfig],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise((r) => proc.once('exit', r));
  return {
    proc,
    log: () => log,
    tunnels: () => [...log.matchAll(/linked to voxd on A \(pid (\d+)\)/g)].map((m) => Number(m[1])),
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
