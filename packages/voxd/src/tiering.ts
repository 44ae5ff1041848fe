/**
 * V8's optimizing compiler (TurboFan) stays off in voxd, for JavaScript,
 * where Maglev (V8's faster-compiling optimizer) takes over: Node 24 and
 * later. The baseline compilers still run, and WebAssembly tiers as before.
 * Imported by main.ts, for its side effect, before daemon.ts and its
 * modules load.
 *
 * Design note (docs/benchmarks.md, "voxd at rest"): start-up loads some 250
 * modules, which makes Node's module loader hot enough for TurboFan to
 * compile it; that pulls about 5 MB of the node binary's pages (the
 * compiler's own code) into voxd's RSS for its whole life, of some 70 MB
 * that an idle voxd holds. voxd's JavaScript is glue around native and Wasm
 * work (HTTP parsing, hashing, synthesis), and Maglev's code is near
 * TurboFan's for it. Node 22's V8 (12) has Maglev off: without TurboFan it
 * would run hot code unoptimized, many times slower, so there it stays on.
 * The flag is set at run time (Node leaves V8's flags unfrozen) so that
 * every launcher, `voxd` or `node dist/main.js`, the service files and
 * autostart, gets it. VOXD_TURBOFAN=1 leaves TurboFan on (to compare, or
 * for a workload that needs it).
 */
import { setFlagsFromString } from 'node:v8';

/** V8 13 (Node 24) is the first that Node ships with Maglev on. */
const maglev = Number(process.versions.v8.split('.')[0]) >= 13;

if (maglev && process.env.VOXD_TURBOFAN !== '1') setFlagsFromString('--no-opt');
