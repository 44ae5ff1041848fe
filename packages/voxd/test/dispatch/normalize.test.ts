import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dedupKeyFor, normalizeText } from '../../src/dispatch/normalize.js';

const SAME: Array<[string, string]> = [
  ['Deploying to staging', 'deploying to STAGING'],
  ['Deploying to staging', '  Deploying   to\nstaging  '],
  ['Deploying to staging', 'Deploying to staging!!'],
  ['Deploying to staging', 'Deploying to staging...'],
  ['Deploying to staging', 'Deploying to staging?'],
  ['Wall from kai: hold merges', 'Wall from kai: hold merges [alert] [serious]'],
  ['Wall from kai: hold merges', '[urgent] Wall from kai: hold merges'],
  ['ｆｕｌｌ width', 'full width'],
];

const DIFFERENT: Array<[string, string]> = [
  ['Deploying to staging', 'Deploying to production'],
  ['Build 41 passed', 'Build 42 passed'],
  ['stop', 'stop now'],
];

test('texts that differ only in case, whitespace, trailing punctuation or tags share a key', () => {
  for (const [a, b] of SAME) assert.equal(normalizeText(a), normalizeText(b), `${a} vs ${b}`);
});

test('different texts keep different keys', () => {
  for (const [a, b] of DIFFERENT) assert.notEqual(normalizeText(a), normalizeText(b), `${a} vs ${b}`);
});

test('a caller key lives in the same namespace as text', () => {
  assert.equal(dedupKeyFor('shop: Deploying to staging', 'Deploying to staging'), dedupKeyFor('Deploying to staging.'));
  assert.notEqual(dedupKeyFor('x', 'build-41'), dedupKeyFor('x', 'build-42'));
});

test('punctuation inside the text still counts', () => {
  assert.notEqual(normalizeText('v1.2 shipped'), normalizeText('v12 shipped'));
});
