#!/usr/bin/env node
// claude-code-bin.mjs DIR: print the native Claude Code binary installed under
// DIR (an npm prefix), or exit 1. The binary is in the per-platform package;
// the wrapper's bin/claude.exe is a placeholder until its postinstall runs.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function claudeCodeBinary(prefix) {
  const glibc = process.report?.getReport()?.header?.glibcVersionRuntime;
  const libc = process.platform === 'linux' && !glibc ? '-musl' : '';
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  const modules = join(prefix, 'node_modules', '@anthropic-ai');
  for (const pkg of [`claude-code-${process.platform}-${process.arch}${libc}`, 'claude-code']) {
    for (const file of [join(modules, pkg, exe), join(modules, pkg, 'bin', 'claude.exe')]) {
      if (existsSync(file) && statSync(file).size > 1_000_000) return file;
    }
  }
  return undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = process.argv[2] && claudeCodeBinary(process.argv[2]);
  if (!bin) process.exit(1);
  console.log(bin);
}
