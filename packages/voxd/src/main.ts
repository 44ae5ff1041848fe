#!/usr/bin/env node
/**
 * voxd's entry (`voxd`, `node dist/main.js`, the service files, autostart):
 * V8's tiering is set (tiering.ts) before the daemon's modules load, then
 * daemon.ts runs it. The import is dynamic because a static one would load
 * the whole graph, and run the loader hot, before the flag is set.
 */
import './tiering.js';

await import('./daemon.js');
