#!/usr/bin/env node
// apt-source.mjs: print "MIRROR SUITE" of the Debian archive this machine's apt
// already uses (the first deb source that is not a -security/-updates/-backports
// suite), from /etc/apt/sources.list and /etc/apt/sources.list.d/*.{list,sources}.
// The fresh-machine root is built from the same place. `apt-source.mjs [DIR]`
// reads DIR instead of /etc/apt (test/repo/ci-scripts.test.ts).
import { readFileSync, readdirSync } from 'node:fs';

const apt = process.argv[2] ?? '/etc/apt';
const files = [`${apt}/sources.list`];
try {
  for (const f of readdirSync(`${apt}/sources.list.d`).sort())
    if (f.endsWith('.list') || f.endsWith('.sources')) files.push(`${apt}/sources.list.d/${f}`);
} catch {}
const extra = /-(security|updates|backports|proposed-updates)$/;
const found = [];
for (const f of files) {
  let text;
  try {
    text = readFileSync(f, 'utf8');
  } catch {
    continue;
  }
  if (f.endsWith('.sources')) {
    for (const stanza of text.split(/\n\s*\n/)) {
      const field = (k) =>
        new RegExp(`^${k}:\\s*(.+)$`, 'mi').exec(stanza.replace(/^#.*$/gm, ''))?.[1].trim().split(/\s+/) ?? [];
      if (!field('Types').includes('deb') || /^Enabled:\s*no/im.test(stanza)) continue;
      for (const uri of field('URIs')) for (const suite of field('Suites')) found.push([uri, suite]);
    }
  } else {
    for (const line of text.split('\n')) {
      const m = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
      if (m) found.push([m[1], m[2]]);
    }
  }
}
const pick = found.find(([uri, suite]) => !extra.test(suite) && !/security/.test(uri));
if (!pick) {
  console.error(`apt-source: no Debian archive source in ${files.join(', ')}`);
  process.exit(1);
}
console.log(`${pick[0]} ${pick[1]}`);
