#!/usr/bin/env node
// agent-cli-bin.mjs codex|gemini|copilot|opencode|qwen DIR: print the entry
// of the Codex CLI, Copilot CLI or opencode (its native binary, in the
// per-platform package), of Gemini CLI (its bundled gemini.js) or of Qwen
// Code (its bundled cli.js; both run with node) installed under DIR (an npm
// prefix), or exit 1.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function codexBinary(prefix) {
  const exe = process.platform === 'win32' ? 'codex.exe' : 'codex';
  const pkg = join(prefix, 'node_modules', '@openai', `codex-${process.platform}-${process.arch}`, 'vendor');
  if (!existsSync(pkg)) return undefined;
  for (const triple of readdirSync(pkg)) {
    const file = join(pkg, triple, 'bin', exe);
    if (existsSync(file) && statSync(file).size > 1_000_000) return file;
  }
  return undefined;
}

export function geminiCliScript(prefix) {
  const file = join(prefix, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
  return existsSync(file) ? file : undefined;
}

export function qwenCodeScript(prefix) {
  const file = join(prefix, 'node_modules', '@qwen-code', 'qwen-code', 'cli.js');
  return existsSync(file) ? file : undefined;
}

export function copilotBinary(prefix) {
  const exe = process.platform === 'win32' ? 'copilot.exe' : 'copilot';
  const file = join(prefix, 'node_modules', '@github', `copilot-${process.platform}-${process.arch}`, exe);
  return existsSync(file) && statSync(file).size > 1_000_000 ? file : undefined;
}

export function opencodeBinary(prefix) {
  const exe = process.platform === 'win32' ? 'opencode.exe' : 'opencode';
  const file = join(prefix, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', exe);
  return existsSync(file) && statSync(file).size > 1_000_000 ? file : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const find = {
    codex: codexBinary,
    gemini: geminiCliScript,
    copilot: copilotBinary,
    opencode: opencodeBinary,
    qwen: qwenCodeScript,
  }[process.argv[2]];
  const bin = find && process.argv[3] && find(process.argv[3]);
  if (!bin) process.exit(1);
  console.log(bin);
}
