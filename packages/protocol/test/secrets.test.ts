import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSecrets, redactSecrets } from '../src/secrets.js';

const said = (t: string) => redactSecrets(t).text;

test('credentials of each known shape are said as their kind, and the rest stays', () => {
  const cases: Array<[string, string]> = [
    [
      'curl -H "Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123" https://api.example.com/v1',
      'curl -H "Authorization: a bearer token" https://api.example.com/v1',
    ],
    ['curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" x', 'curl -H "Authorization: basic credentials" x'],
    ['export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuv', 'export ANTHROPIC_API_KEY=an Anthropic API key'],
    ['echo sk-proj-abcdefghijklmnopqrstuvwxyz012345', 'echo an OpenAI API key'],
    ['git push https://bob:hunter2hunter2@github.com/x/y', 'git push https://credentials@github.com/x/y'],
    [
      'gh auth login --with-token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'gh auth login --with-token a GitHub token',
    ],
    ['aws s3 ls AKIAABCDEFGHIJKLMNOP', 'aws s3 ls an AWS key'],
    ['mysql --password=s3cr3t! -u root', 'mysql --password=a secret -u root'],
    ['DB_PASSWORD="correct horse" npm start', 'DB_PASSWORD=a secret npm start'],
    ['{"api_key": "abc123def456"}', '{"api_key": a secret}'],
    [
      'printf "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----" > k',
      'printf "a private key" > k',
    ],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36', 'token a JSON web token'],
  ];
  for (const [text, expected] of cases) assert.equal(said(text), expected, text);
});

test('what only looks random is kept: commit hashes, ids, plain words named token', () => {
  for (const text of [
    'git checkout 3f9c2b1e8d7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e',
    'docker rm f47ac10b-58cc-4372-a567-0e02b2c3d479',
    'npm test',
    'grep -r token src/',
    'rm -rf /home/dev/projects/shop/src/../../../../../home/dev',
  ])
    assert.deepEqual(findSecrets(text), [], text);
});

test('the kinds hidden are listed in order, for a log line', () => {
  const r = redactSecrets(
    'A=1 GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 curl -H "Authorization: Bearer abcdefghijk"',
  );
  assert.deepEqual(r.kinds, ['a GitHub token', 'a bearer token']);
  assert.doesNotMatch(r.text, /ghp_|abcdefghijk/);
});

test('a 4 KB command with secrets scattered through it is redacted whole, each once', () => {
  const chunk = 'echo hello world && curl -H "Authorization: Bearer abcdefghijklmnop" https://x.example/a/b ; ';
  const text = chunk.repeat(Math.ceil(4096 / chunk.length));
  const r = redactSecrets(text);
  assert.equal(r.kinds.length, Math.ceil(4096 / chunk.length));
  assert.doesNotMatch(r.text, /abcdefghijklmnop/);
});

test('names that only mention a token or a key are not secrets: max_tokens, token_count, keyboard', () => {
  for (const text of [
    'prompt is too long: 201234 tokens > 200000 maximum (max_tokens: 4096)',
    'token_count=12 keyboard=us monkey: 3',
    'curl -d \'{"max_tokens": 100}\' https://x.example',
  ])
    assert.deepEqual(findSecrets(text), [], text);
});
