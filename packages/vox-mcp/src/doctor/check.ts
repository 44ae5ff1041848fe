/** What a check of `vox doctor` is, the options of a run, and how checks are printed. */
import { statSync } from 'node:fs';
import { printable, type HealthResponse, type StatusResponse } from '@vox/protocol';
import type { ClaudeCode } from '../claude/claude-code.js';

/** `skip`: the check does not apply here (e.g. no Claude Code), so it neither passes nor warns. */
export type CheckLevel = 'ok' | 'warn' | 'fail' | 'skip';

export interface Check {
  /** Short name, e.g. `daemon`, `engine openai`, `audio device`. */
  name: string;
  level: CheckLevel;
  detail: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

export interface ProbeResult {
  ok: boolean;
  detail: string;
}

/** audio-io's probe: why it failed, when the reason is known (the library, the device, the package). */
export interface AudioIoProbe extends ProbeResult {
  cause?: 'library' | 'device' | 'module';
}

/** The capture devices found (e.g. `card 0 device 0`), and where doctor looked; `unknown` when it could not tell. */
export interface CaptureProbe {
  devices: string[];
  looked: string;
  unknown?: boolean;
}

/** A transcriber's answer to a GET of its models: the HTTP status, or why nothing answered. */
export type TranscriberProbe = { status: number } | { error: string };

/** What `vox doctor` asks of voxd, gathered once. */
export interface DaemonView {
  /** Where the client looked, e.g. `127.0.0.1:8421 (from voxd.json)`; undefined when nothing says where. */
  where?: string;
  health?: HealthResponse;
  /** GET /v1/status with the client's token: the body, or the HTTP status when refused. */
  status?: StatusResponse;
  statusCode?: number;
  /** Why nothing answered. */
  error?: string;
  /** pid from voxd.json, when there is one. */
  statePid?: number;
}

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Default process.platform. */
  platform?: NodeJS.Platform;
  /** Default process.versions.node. */
  nodeVersion?: string;
  /** Default VERSION. */
  clientVersion?: string;
  /** Default: ask the voxd of `env`. */
  daemon?: (env: NodeJS.ProcessEnv) => Promise<DaemonView>;
  /** Default: run voxd's speaker child with `--probe`. */
  probeSpeaker?: (env: NodeJS.ProcessEnv) => Promise<ProbeResult>;
  /** Default: open and close the default output with voxd's @echogarden/audio-io, in a child process. */
  probeAudioIo?: (env: NodeJS.ProcessEnv) => Promise<AudioIoProbe>;
  /** Default: GET URL/models (no key sent), within a few seconds. */
  probeTranscriber?: (url: string) => Promise<TranscriberProbe>;
  /** Default: pipe 10 ms of silence into the player. */
  probePlayer?: (player: PlayerName, path: string, env: NodeJS.ProcessEnv) => Promise<ProbeResult>;
  /** Default: look in env.PATH. */
  which?: (name: string, env: NodeJS.ProcessEnv) => string | undefined;
  /** Default: the espeak-ng-emscripten package beside voxd. */
  embeddedEngine?: () => ProbeResult;
  /** Default: sherpa-onnx-node beside voxd. */
  sherpaModule?: () => ProbeResult;
  /** Default: claude/claude-code.ts's findClaudeCode. */
  claudeCode?: (env: NodeJS.ProcessEnv) => ClaudeCode | undefined;
  /** Default: look for capture devices (probes.ts's captureDevices). */
  captureDevices?: (env: NodeJS.ProcessEnv, platform: NodeJS.Platform) => Promise<CaptureProbe>;
  /** Default: service.ts's serviceInstalled. */
  serviceInstalled?: (env: NodeJS.ProcessEnv) => Promise<boolean>;
}

/** Player commands voxd falls back to, in its order (voxd's sinks/command.ts). */
export const PLAYERS = ['paplay', 'pw-play', 'aplay', 'afplay'] as const;
export type PlayerName = (typeof PLAYERS)[number];

/** A file's permission bits, or undefined when it cannot be read. */
export function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

export const octal = (mode: number) => mode.toString(8).padStart(3, '0');

export function formatChecks(checks: readonly Check[]): string {
  const lines: string[] = [];
  for (const c of checks) {
    // A detail may quote a path, a settings key or another program's words.
    lines.push(`${c.level.padEnd(4)}  ${c.name}: ${printable(c.detail)}`);
    if ((c.level === 'warn' || c.level === 'fail') && c.fix) lines.push(`  fix: ${printable(c.fix)}`);
  }
  const fails = checks.filter((c) => c.level === 'fail').length;
  const warns = checks.filter((c) => c.level === 'warn').length;
  lines.push(
    '',
    fails
      ? `${fails} check${fails === 1 ? '' : 's'} failed, ${warns} warning${warns === 1 ? '' : 's'}`
      : warns
        ? `no failures, ${warns} warning${warns === 1 ? '' : 's'}`
        : 'everything looks fine',
  );
  return `${lines.join('\n')}\n`;
}

/** True when no check failed. */
export function healthy(checks: readonly Check[]): boolean {
  return checks.every((c) => c.level !== 'fail');
}
