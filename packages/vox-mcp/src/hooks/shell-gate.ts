/**
 * The shell gate before a command hook's node: a few lines of POSIX sh, run
 * by the agent's shell in the hook's working directory, that exit 0 at once
 * when the project's `.vox/config.md` makes the event say nothing, and else
 * hand over to node as before (docs/agents.md, "The gate").
 *
 * Design notes:
 * - What can make a gated event say something is the event's kind and the
 *   `notify` line alone (policy.ts): a `chatty` event (SessionStart,
 *   SessionEnd, PreCompact, SubagentStop) speaks only in `notify: chatty` (or
 *   `continuous`); a `spoken` one (Stop, StopFailure, PermissionRequest,
 *   Notification) in every level but `off`. `narrate` never silences an event
 *   (with `narrate: off` Stop still says "<project> is done"), `speak: false`
 *   plays chimes, and `approveByVoice` acts only where the hook can answer by
 *   voice (Claude Code's, whose voice events are not gated): none of them opens
 *   or closes a gate.
 * - It is conservative: it closes only when it has read the nearest config as
 *   vox reads it. It walks up from `$PWD` as vox does from the payload's cwd
 *   (every agent runs hooks there: Codex, Gemini and Qwen set the process's
 *   cwd to the payload's, tried or read in their code); with no file on the
 *   way it looks at `$HOME/.vox/config.md` too, which may only open the gate
 *   (vox may reach the home's file by a path through a symlink that the
 *   shell's walk does not take). It reads the front matter line by line with
 *   the shell's own `read` and `case` (no process started), and starts node on
 *   anything it does not follow: an unreadable file, a BOM or `---yaml`
 *   opening, no closing `---`, indented or escaped lines, `notify` written any
 *   way but `notify: <value>` (quoted or not, a comment after it), a repeated
 *   key, an unknown value. Only whole comment lines are skipped, so a
 *   template's comment naming "chatty" no longer opens it.
 * - The subshell exits 0 only when silent (`(...) && exit 0; exec node`): a
 *   shell that fails to run it, for whatever reason, starts node.
 * - No `${`: Claude Code substitutes those in a plugin's commands. No
 *   `$GEMINI_…`, `$CLAUDE_PROJECT_DIR` or `$QWEN_PROJECT_DIR`: Gemini and Qwen
 *   substitute those in every command.
 */

/** When a gated event can say something: `chatty` in notify chatty (or continuous) only; `spoken` unless notify is off. */
export type GateKind = 'chatty' | 'spoken';

/** The kind of each of vox's events (event.ts) whose command may be gated; an event not here is never gated. */
export const GATE_KINDS: Readonly<Record<string, GateKind>> = {
  SessionStart: 'chatty',
  SessionEnd: 'chatty',
  PreCompact: 'chatty',
  SubagentStop: 'chatty',
  Stop: 'spoken',
  StopFailure: 'spoken',
  PermissionRequest: 'spoken',
  Notification: 'spoken',
};

/** The notify values that close each kind's gate; `def`: the defaults (notify: normal) open it. */
const KINDS: Record<GateKind, { closed: string[]; def: boolean }> = {
  chatty: { closed: ['off', 'quiet', 'normal'], def: false },
  spoken: { closed: ['off'], def: true },
};

/** A `case` pattern for a notify value: plain, "double" or 'single' quoted, and a CR after it (a CRLF file). */
const valuePattern = (words: readonly string[]): string =>
  words.flatMap((w) => [w, `\\"${w}\\"`, `\\'${w}\\'`].flatMap((p) => [p, `${p}[[:cntrl:]]`])).join('|');

/**
 * The shell that runs before `exec <node …>` for a gated kind, ending in
 * `&& exit 0; ` (the caller appends `exec` and the command). 1 is "start
 * node", 0 is "silent".
 */
export function shellGate(kind: GateKind): string {
  const k = KINDS[kind];
  const none = k.def ? 'exit 1' : 'exit 0';
  return [
    // Silent whatever it meets (an unreadable file, a directory it cannot enter): the agent shows a hook's stderr.
    '(exec 2>/dev/null; until [ -f .vox/config.md ] || [ "$PWD" = / ]; do cd .. || exit 1; done;',
    // No file: the defaults; where they are silent, the home's file (if any) may still open the gate.
    k.def
      ? '[ -f .vox/config.md ] || exit 1;'
      : '[ -f .vox/config.md ] || { [ -n "$HOME" ] && cd "$HOME" && [ -f .vox/config.md ] || exit 0; };',
    'exec <.vox/config.md || exit 1; IFS= read -r l || exit 1;',
    // Front matter opens with `---` alone; no `---` at all is the defaults; anything else (BOM, ---yaml) is node's.
    `case $l in ---|---[[:cntrl:]]) ;; *---*) exit 1;; *) ${none};; esac;`,
    'n=; c=; while IFS= read -r l; do case $l in',
    '---*[![:space:]]*) exit 1;; ---*) c=1; break;; "#"*|"") ;;',
    '[[:space:]]*) case $l in *[![:space:]]*) exit 1;; esac;;',
    '*\\\\*) exit 1;;',
    'notify:[[:blank:]]*) [ -z "$n" ] || exit 1; n=$l;;',
    '*notify*) exit 1;;',
    'esac; done; [ -n "$c" ] || exit 1;',
    `[ -n "$n" ] || ${none}; set -f; set -- $n; case $3 in ""|"#"*) ;; *) exit 1;; esac;`,
    `case $2 in ${valuePattern(k.closed)}) exit 0;; esac; exit 1) && exit 0; `,
  ].join(' ');
}

/** The gate for one of vox's events, '' for an event that is never gated. */
export function gateFor(event: string): string {
  const kind = Object.hasOwn(GATE_KINDS, event) ? GATE_KINDS[event] : undefined;
  return kind ? shellGate(kind) : '';
}

/** A command line with the event's gate before it: `<gate>exec <command>`, or the command alone when not gated. */
export function gatedCommand(event: string, command: string): string {
  const gate = gateFor(event);
  return gate ? `${gate}exec ${command}` : command;
}
