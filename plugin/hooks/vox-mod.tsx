/**
 * The vox mod (Claude Code 2.1.287 and later; docs/claude-code.md, "The vox
 * mod"): a status item and a band that say what voxd is doing,
 * `/vox-stop`, which stops this session's speech mid-turn, and `/vox-talk`,
 * push-to-talk into this session (talk.ts). Both move voxd's focus to this
 * session (focus.ts).
 *
 * Design notes:
 * - It reads voxd's state with the token, as every vox client does: the token
 *   file and voxd.json in VOX_HOME, read with `$.fs.read` (the token never
 *   leaves this worker but in the Authorization header to 127.0.0.1; it is
 *   never drawn, logged or put in the transcript). A read-only route without
 *   the token was rejected: /v1/status names every session and what it says.
 * - It costs nothing when voxd is not running: without voxd.json no request is
 *   made and the tick slows to every 2 s; every call is raced against a timer,
 *   one tick at a time, and any failure draws "vox: off".
 * - Only in an interactive session (`e.isInteractive`): a `-p` run draws
 *   nothing, so it polls nothing.
 * - `/vox-talk` answers at once and listens outside its command hook: Claude
 *   Code refuses `$.prompt.submit` from a `command.run` hook (the turn it
 *   would wait on is the one the hook holds), and the UI must not wait on
 *   the microphone. The listen is bounded (talk.ts); past the bound the mod
 *   ends its own listen so the microphone is not held.
 * - It narrates the model's text as it streams (`turn.step`,
 *   step-narration.ts), ahead of MessageDisplay; voxd speaks each turn from
 *   one source, so nothing is said twice, and speaks the mod's batches only
 *   as the project's config says (declared by the session's `vox mcp`, its
 *   one reader). It never holds the stream: batches are posted in order
 *   behind it, each bounded; a turn voxd drops whole is not sent further.
 *   VOX_CLAUDE_MOD_NARRATION=off turns it off.
 * - VOX_CLAUDE_MOD=off in Claude Code's environment turns it off.
 */
import type { Register } from 'claude-code';
import { approvesByVoice, describe, endpointOf, myLabels, OFF, shortId, tokenOf, voxHomeOf, type Band, type VoxStatus } from './band.js';
import { focusRequest } from './focus.js';
import { DroppedTurns, narratesSteps, StepNarration, stepLabel, type StepBatch } from './step-narration.js';
import { talkBoundMs, talkLabel, talkOutcome, talkRequest, type ListenAnswer } from './talk.js';

const TICK_MS = 500;
const OFF_TICK_MS = 2000;
/** Any one call to voxd or the disk; voxd answers in a few ms. */
const CALL_MS = 400;
/** The project's config is read again this often (approval by voice). */
const CONFIG_MS = 10_000;
const MAX_IDS = 32;
/** Narration batches waiting behind a slow voxd, at most. */
const MAX_PENDING = 32;

export const register: Register = (on) => {
  let band: Band = OFF;
  let status: VoxStatus | undefined;
  let endpoint: string | undefined;
  let token: string | undefined;
  let home: string | undefined;
  let approval = false;
  let configAt = 0;
  let offUntil = 0;
  let busy = false;
  const ids: string[] = [];
  /** Set once the session has started with the mod on. */
  let stopMine: (() => Promise<string>) | undefined;
  let talkMine: (() => Promise<string>) | undefined;
  /** Set once the session has started (unless VOX_CLAUDE_MOD_NARRATION=off): its label, and a batch of a turn posted in order. */
  let narrationLabel: (() => Promise<string>) | undefined;
  let postBatch: ((batch: StepBatch, turn: string) => void) | undefined;
  /** The label of this session's `/vox-talk` listen while it runs; '' while it starts. */
  let talking: string | undefined;

  on('session.start', async ($, e, next) => {
    if (!e.isInteractive || (await $.env.get('VOX_CLAUDE_MOD')) === 'off') return next(e);
    const bounded = <T,>(p: Promise<T>, ms = CALL_MS): Promise<T> =>
      Promise.race([p, new Promise<T>((_, reject) => $.clock.after(ms, () => reject(new Error('timed out'))))]);

    const locate = async (): Promise<boolean> => {
      home ??= voxHomeOf(
        {
          VOX_HOME: await $.env.get('VOX_HOME'),
          XDG_STATE_HOME: await $.env.get('XDG_STATE_HOME'),
          HOME: await $.env.get('HOME'),
        },
        (await $.session.machine()).sysname === 'Darwin' ? 'darwin' : 'other',
      );
      if (!home) return false;
      endpoint = endpointOf(await bounded($.fs.read(`${home}/voxd.json`, { length: 65536 })));
      token = tokenOf(await bounded($.fs.read(`${home}/token`, { length: 1024 })));
      return !!endpoint && !!token;
    };

    const call = async (method: string, path: string, body?: unknown, ms = CALL_MS): Promise<unknown> => {
      if ((!endpoint || !token) && !(await locate())) throw new Error('voxd is not running');
      let r;
      try {
        r = await bounded(
          $.http.fetch(`${endpoint}${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
            ...(body ? { body: JSON.stringify(body) } : {}),
          }),
          ms,
        );
      } catch (err) {
        // voxd gone or replaced (another port, another token): found again from VOX_HOME at the next call.
        endpoint = token = undefined;
        throw err;
      }
      if (!r.ok) {
        // voxd's error code (VOX_ERR_…) says why, in a few letters; its message may quote the request.
        let code: unknown;
        try {
          code = (JSON.parse(r.text) as { code?: unknown }).code;
        } catch {
          // Not voxd's JSON: the status alone.
        }
        throw new Error(`voxd answered ${r.status}${typeof code === 'string' ? ` ${code.slice(0, 60)}` : ''}`);
      }
      return JSON.parse(r.text);
    };

    const noteId = async () => {
      const id = shortId(await $.session.id());
      if (!ids.includes(id)) {
        ids.push(id);
        if (ids.length > MAX_IDS) ids.shift();
      }
    };

    const readApproval = async () => {
      let dir = await $.session.cwd();
      for (let i = 0; i < 64; i++) {
        const text = await bounded($.fs.read(`${dir}/.vox/config.md`, { length: 65536 })).catch(() => undefined);
        if (text !== undefined) return approvesByVoice(text);
        const up = dir.replace(/\/[^/]*$/, '');
        if (up === dir || up === '') return false;
        dir = up;
      }
      return false;
    };

    const draw = (drawn: Band) => {
      if (drawn.status === band.status && drawn.band === band.band) return;
      band = drawn;
      $.ui.status(band.status);
      $.ui.invalidate('ui.render');
    };

    const tick = async () => {
      const now = Date.now();
      if (busy || now < offUntil) return;
      busy = true;
      try {
        await noteId();
        if (now - configAt > CONFIG_MS) {
          configAt = now;
          approval = await readApproval();
        }
        status = (await call('GET', '/v1/status?limit=0')) as VoxStatus;
        draw(describe(status, ids, approval));
      } catch {
        status = undefined;
        offUntil = Date.now() + OFF_TICK_MS - TICK_MS;
        draw(OFF);
      } finally {
        busy = false;
      }
    };

    /** The person is in this session (voxd's attention); bounded as every call, and a failure costs the key nothing. */
    const focusHere = async (known: readonly string[], key: 'vox-talk' | 'vox-stop'): Promise<void> => {
      try {
        const label = talkLabel(known, await $.session.cwd(), shortId(await $.session.id()));
        await call('POST', '/v1/focus', focusRequest(label, key));
      } catch {
        // Never rejects: the key's own work is what the person asked for.
      }
    };

    stopMine = async (): Promise<string> => {
      await noteId();
      const stop = (label: string) => call('POST', '/v1/stop', { scope: 'session', session: label });
      // What the last tick knew is stopped at once; a fresh status finds any label newer than it.
      const known = status ? myLabels(status, ids) : [];
      const first = known.map((l) => stop(l).catch(() => undefined));
      const fresh = myLabels((await call('GET', '/v1/status?limit=0')) as VoxStatus, ids).filter((l) => !known.includes(l));
      const focused = focusHere([...fresh, ...known], 'vox-stop');
      const answers = (await Promise.all([...first, ...fresh.map(stop)])) as Array<{ stopped?: string[] } | undefined>;
      await focused;
      const stopped = answers.reduce((n, a) => n + (a?.stopped?.length ?? 0), 0);
      // Claude Code shows a command's output after "vox: ".
      return stopped ? `stopped ${stopped} of this session (${[...known, ...fresh].join(', ')})` : 'nothing of this session to stop';
    };

    /** The listen of a /vox-talk, then its transcript submitted, or one quiet line; never throws. */
    const listenAndSubmit = async (label: string) => {
      const request = talkRequest(label);
      try {
        const outcome = talkOutcome((await call('POST', '/v1/listen', request, talkBoundMs(request))) as ListenAnswer);
        if ('quiet' in outcome) $.ui.log(outcome.quiet);
        // Submitted as the person's words (asUser), marked as spoken; it starts its turn once the session is idle.
        else await $.prompt.submit({ text: outcome.submit, asUser: true });
      } catch (err) {
        $.ui.log(`vox-talk: ${(err as Error).message}; nothing sent`);
        // Gave up waiting (or voxd failed): end this listen if it still runs, so the microphone is not held.
        await endListen(label).catch(() => undefined);
      } finally {
        talking = undefined;
      }
    };

    /** Ends this session's listen now (POST /v1/stop by its id): voxd transcribes what it recorded. */
    const endListen = async (label: string): Promise<boolean> => {
      const l = ((await call('GET', '/v1/status?limit=0')) as VoxStatus).listening;
      if (!l || l.session !== label) return false;
      await call('POST', '/v1/stop', { scope: 'id', id: l.id });
      return true;
    };

    talkMine = async (): Promise<string> => {
      // Claimed before the first await: two presses in one tick start one listen.
      if (talking === '') return 'starting the listen';
      if (talking !== undefined) return (await endListen(talking)) ? 'ending the recording' : 'still transcribing';
      talking = '';
      let label: string;
      try {
        await noteId();
        if ((!endpoint || !token) && !(await locate())) throw new Error('voxd is not running');
        label = talkLabel(status ? myLabels(status, ids) : [], await $.session.cwd(), shortId(await $.session.id()));
      } catch (err) {
        talking = undefined;
        throw err;
      }
      talking = label;
      // Out of this command hook: it answers at once, and the prompt is submitted from a timer, where Claude Code allows it.
      $.clock.after(0, () => void listenAndSubmit(label));
      await focusHere([label], 'vox-talk');
      return 'listening: speak, then pause (/vox-talk again ends it)';
    };

    if (narratesSteps(await $.env.get('VOX_CLAUDE_MOD_NARRATION'), undefined)) {
      narrationLabel = async () =>
        stepLabel(status ? myLabels(status, ids) : [], await $.session.cwd(), shortId(await $.session.id()));
      let posted: Promise<unknown> = Promise.resolve();
      let pending = 0;
      const dropped = new DroppedTurns();
      postBatch = (batch, turn) => {
        // In order, one at a time, each bounded; none of a turn voxd drops whole. Not skipped for a while after a
        // status tick that failed (a loaded run saw a whole reply go unsent): without voxd a post costs a failed
        // read of voxd.json, and behind a slow one at most MAX_PENDING wait (voxd skips the gap of one not sent).
        if (pending >= MAX_PENDING) return;
        pending++;
        posted = posted
          .then(async () => {
            if (!dropped.sends(turn)) return;
            dropped.answered(turn, await call('POST', '/v1/narration', batch).catch(() => undefined));
          })
          .finally(() => pending--);
      };
    }

    $.ui.status(band.status);
    await $.command.register({ name: 'vox-stop', description: "Stop this session's speech (vox)", immediate: true });
    await $.command.register({
      name: 'vox-talk',
      description: 'Push-to-talk: say a prompt to this session (vox)',
      immediate: true,
      isTerminalOnly: true,
    });
    $.clock.every(TICK_MS, () => void tick());
    void tick();
    return next(e);
  });

  on('turn.step', async function* ($, e, next) {
    if (!postBatch || !narrationLabel || !narratesSteps('on', e.agentId)) return yield* next(e);
    const posting = postBatch;
    const post = (b: StepBatch) => posting(b, e.turnId);
    let step: StepNarration | undefined;
    try {
      step = new StepNarration(await narrationLabel(), e.turnId, e.index);
    } catch {
      // No label (the session's id unreadable): the step streams unnarrated.
    }
    const stream = next(e);
    for await (const c of stream) {
      if (step && c.kind === 'text') {
        const b = step.text(c.index, c.text);
        if (b) post(b);
      } else if (step && c.kind === 'stop') step.end().forEach(post);
      yield c;
    }
    // A stream that ended without its stop chunk (aborted): the blocks end where they are.
    step?.end().forEach(post);
    return await stream.result;
  });

  on('command.run', { command: 'vox-stop' }, async () => ({
    text: stopMine ? await stopMine().catch((err: Error) => `off (${err.message})`) : 'off',
  }));

  on('command.run', { command: 'vox-talk' }, async () => ({
    text: talkMine ? await talkMine().catch((err: Error) => `off (${err.message})`) : 'off',
  }));

  on('ui.render', { component: 'AbovePrompt' }, async ($, e, next) => {
    // Off (VOX_CLAUDE_MOD=off, or a -p run): no row at all.
    if (!stopMine || (e.plugin && e.plugin !== $.plugin.name)) return next(e);
    const { Box, Text } = $.ui.resolve(e);
    return (
      <Box>
        <Text dimColor>{band.band}</Text>
      </Box>
    );
  });
};
