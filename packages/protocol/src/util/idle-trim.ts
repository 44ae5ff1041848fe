/**
 * Memory given back while a long-lived process is idle: voxd, and each
 * session's `vox mcp` (not exported from the package's index: only those two
 * entries load it, as `@vox/protocol/idle-trim`).
 *
 * Design note (docs/benchmarks.md, "voxd at rest"): after start-up, an idle
 * voxd held 94 MB RSS, of which 11.6 MB was V8's young generation, empty but
 * still committed, and more was old-space slack left by start-up and the last
 * burst of work. V8 gives that back only in a memory-reducing collection,
 * which nothing triggers in a process that is waiting. So when the event loop
 * has been nearly idle for a whole check period and the heap grew since the
 * last trim, one such collection runs (tens of ms, only when no one waits):
 * idle voxd then holds about 80 MB, under twice an idle node.
 *
 * Idle means, by default, the event loop's utilization under a share over the
 * period (Node's global `performance`, loaded on first use). A process that
 * knows its own work passes `idle` instead: `vox mcp` counts its messages, as
 * loading perf_hooks cost it 0.25 MB, a fifth of what it holds over an idle
 * node (docs/benchmarks.md, "vox mcp PSS per session").
 */
import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface IdleTrimOptions {
  /** How often the loop's idleness is looked at (ms). */
  checkMs?: number;
  /** Below this share of busy time over a period, the process counts as idle. */
  idleUtilization?: number;
  /** Called once a period: whether the process was idle since the last call (instead of the loop's utilization). */
  idle?: () => boolean;
  /** A trim runs once the heap holds this many bytes more than after the last one. */
  minGrowth?: number;
  log?: { debug(obj: object, msg?: string): void };
}

export interface IdleTrim {
  /** Collections run so far. */
  readonly trims: number;
  stop(): void;
}

/** The heap's committed bytes (young generation included): what a trim can give back. */
function committed(): number {
  return v8.getHeapSpaceStatistics().reduce((n, s) => n + s.physical_space_size, 0);
}

let gcFn: Gc | undefined;
/** V8's gc(), reached without starting Node with --expose-gc (the flag holds for contexts made after it is set). */
function gc(): Gc {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc') as Gc;
  }
  return gcFn;
}

/** Idleness from the event loop's utilization: below `share` busy over the period since the last call. */
function loopIdle(share: number): () => boolean {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return busy < share;
  };
}

export function startIdleTrim(options: IdleTrimOptions = {}): IdleTrim {
  const checkMs = options.checkMs ?? 10_000;
  const idle = options.idle ?? loopIdle(options.idleUtilization ?? 0.02);
  const minGrowth = options.minGrowth ?? 2 * 1024 * 1024;
  let floor = 0;
  let trims = 0;
  const timer = setInterval(() => {
    const before = committed();
    if (!idle() || before < floor + minGrowth) return;
    const t0 = Date.now();
    gc()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    trims++;
    floor = committed();
    // The collection's own time is not the process's work.
    idle();
    options.log?.debug(
      { heapBeforeMb: round(before), heapAfterMb: round(floor), ms: Date.now() - t0 },
      'idle: heap trimmed',
    );
  }, checkMs);
  timer.unref();
  return {
    get trims() {
      return trims;
    },
    stop: () => clearInterval(timer),
  };
}

const round = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
