/**
 * What the vox mod draws, from voxd's GET /v1/status: pure functions, no
 * Claude Code API, so node tests import this file as it is (test/claude/
 * claude-mod-band.test.ts) and the mod (vox-mod.tsx) imports it too.
 *
 * Design notes:
 * - `VoxStatus` is the part of @vox/protocol's status answer the mod reads,
 *   restated structurally because a mod cannot import a package: Claude Code
 *   loads only the plugin's own files. The test feeds it a real voxd's answer.
 * - A session is known by the short id ending its label (`web#3c07f0`: the
 *   project's name, then the first 6 letters and digits of Claude Code's
 *   session id, as vox's project/session.ts makes it). The mod knows the
 *   session id, not the project name vox chose, so it matches the suffix.
 */

export interface VoxStatus {
  queue?: { length?: number };
  playing?: { id: string; session?: string } | null;
  history?: Array<{ id: string; voice?: string; session?: string }>;
  sessionVoices?: Array<{ session: string; voice: string }>;
  listening?: { id: string; session?: string; open?: boolean; queued?: number } | null;
  narrating?: { items?: Array<{ session: string }> };
}

/** The short id vox puts after `#` in a session's label. */
export function shortId(id: string): string {
  return id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 6) || 'anon';
}

/** Whether `label` is one of this session's (any of its ids, which change at /clear). */
export function isMine(label: string | undefined, shortIds: readonly string[]): boolean {
  if (!label) return false;
  const at = label.lastIndexOf('#');
  return at >= 0 && shortIds.includes(label.slice(at + 1));
}

/** Every label of this session that voxd knows of now: what `/vox-stop` stops. */
export function myLabels(status: VoxStatus, shortIds: readonly string[]): string[] {
  const seen = new Set<string>();
  const add = (label: string | undefined) => {
    if (label && isMine(label, shortIds)) seen.add(label);
  };
  add(status.playing?.session);
  for (const v of status.sessionVoices ?? []) add(v.session);
  for (const n of status.narrating?.items ?? []) add(n.session);
  add(status.listening?.session ?? undefined);
  return [...seen];
}

/** The voice voxd speaks `label` with: the playing item's own, else the one it gave the session. */
function voiceOf(status: VoxStatus, label: string | undefined, playingId?: string): string | undefined {
  const played = playingId ? status.history?.find((h) => h.id === playingId)?.voice : undefined;
  return played ?? status.sessionVoices?.find((v) => v.session === label)?.voice;
}

export interface Band {
  /** The status item under the prompt, short; Claude Code draws it after "vox: ". */
  status: string;
  /** The band above the prompt: everything the mod knows. */
  band: string;
}

/**
 * The quiet line drawn whenever voxd cannot be asked. Claude Code puts the
 * plugin's name before a status item ("vox: off"), not before the band.
 */
export const OFF: Band = { status: 'off', band: 'vox: off' };

export function describe(status: VoxStatus, shortIds: readonly string[], approvalByVoice: boolean): Band {
  const playing = status.playing ?? undefined;
  const queued = status.queue?.length ?? 0;
  const who = (label: string | undefined) => (label ? `${label}${isMine(label, shortIds) ? ' (this session)' : ''}` : 'a shell');
  let speaking = 'quiet';
  if (playing) {
    const voice = voiceOf(status, playing.session, playing.id);
    speaking = `speaking: ${who(playing.session)}${voice ? `, voice ${voice}` : ''}`;
  }
  const mine = myLabels(status, shortIds);
  const myVoice = mine.map((l) => voiceOf(status, l)).find((v) => v);
  const l = status.listening ?? undefined;
  const mic = l?.open ? `mic: open, ${l.session ? who(l.session) : l.id}` : 'mic: closed';
  const parts = [
    speaking,
    `${queued} queued`,
    `this session: ${myVoice ? `voice ${myVoice}` : 'no voice yet'}`,
    mic,
    `approval by voice: ${approvalByVoice ? 'on' : 'off'}`,
  ];
  return {
    status: `${playing ? (isMine(playing.session, shortIds) ? 'speaking (this session)' : `speaking ${playing.session ?? ''}`.trim()) : 'quiet'}${queued ? `, ${queued} queued` : ''}${l?.open ? ', mic open' : ''}`,
    band: `vox · ${parts.join(' · ')}`,
  };
}

/**
 * Where vox keeps its state (VOX_HOME), as @vox/protocol's home.ts finds it:
 * VOX_HOME, else Application Support on macOS, else the XDG state directory.
 */
export function voxHomeOf(env: { VOX_HOME?: string; XDG_STATE_HOME?: string; HOME?: string }, platform: string): string | undefined {
  if (env.VOX_HOME) return env.VOX_HOME;
  if (!env.HOME) return undefined;
  if (platform === 'darwin') return `${env.HOME}/Library/Application Support/vox`;
  return `${env.XDG_STATE_HOME || `${env.HOME}/.local/state`}/vox`;
}

/** voxd's address from voxd.json, only when it is this machine's loopback (the mod talks to nothing else). */
export function endpointOf(stateText: string): string | undefined {
  let state: { host?: unknown; port?: unknown };
  try {
    state = JSON.parse(stateText) as typeof state;
  } catch {
    return undefined;
  }
  const port = state.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  if (state.host !== '127.0.0.1' && state.host !== 'localhost') return undefined;
  return `http://127.0.0.1:${port}`;
}

/** The token as voxd writes it (base64url), or undefined: nothing else goes into a header. */
export function tokenOf(text: string): string | undefined {
  const t = text.trim();
  return /^[A-Za-z0-9_-]{16,200}$/.test(t) ? t : undefined;
}

/** `approveByVoice: true` in the front matter of a `.vox/config.md` (YAML's core schema spellings of true). */
export function approvesByVoice(configText: string): boolean {
  const m = /^\uFEFF?---[^\n]*\n([\s\S]*?)\n---\s*(\n|$)/.exec(configText);
  return !!m && /^approveByVoice:\s*(true|True|TRUE)\s*(#.*)?$/m.test(m[1]!);
}
