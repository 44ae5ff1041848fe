/**
 * An elicitation's one choice answered by voice (hooks/voice/elicitation-choice.ts):
 * which forms are asked, what is said, the strict grammar of the answer, and
 * the Elicitation hook output Claude Code 2.1.332 reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  choiceOf,
  choiceOutput,
  choiceText,
  matchChoice,
  optionsOf,
} from '../../../src/hooks/voice/elicitation-choice.js';
import { DEFAULTS, type ResolvedConfig } from '../../../src/project/config-schema.js';

const config = (values: Partial<typeof DEFAULTS>): ResolvedConfig =>
  ({
    projectDir: '/p',
    projectName: 'shop',
    values: { ...DEFAULTS, ...values },
    sources: {},
    pronunciations: [],
  }) as unknown as ResolvedConfig;

const ENV_SCHEMA = {
  type: 'object',
  properties: { environment: { type: 'string', enum: ['staging', 'production'] } },
  required: ['environment'],
};
const payload = {
  mcp_server_name: 'deploy',
  message: 'Which environment?',
  mode: 'form',
  elicitation_id: 'el-1',
  requested_schema: ENV_SCHEMA,
};

test('a single choice: a string enum (its enumNames as labels), a oneOf of const and title, a boolean', () => {
  assert.deepEqual(optionsOf({ type: 'string', enum: ['staging', 'production'] }), [
    { value: 'staging', label: 'staging' },
    { value: 'production', label: 'production' },
  ]);
  assert.deepEqual(optionsOf({ type: 'string', enum: ['stg', 'prd'], enumNames: ['Staging', 'Production'] }), [
    { value: 'stg', label: 'Staging' },
    { value: 'prd', label: 'Production' },
  ]);
  assert.deepEqual(
    optionsOf({
      type: 'string',
      oneOf: [{ const: '#f00', title: 'Red' }, { const: '#0f0', title: 'Green' }, { const: 'blue' }],
    }),
    [
      { value: '#f00', label: 'Red' },
      { value: '#0f0', label: 'Green' },
      { value: 'blue', label: 'blue' },
    ],
  );
  assert.deepEqual(optionsOf({ type: 'boolean' }), [
    { value: true, label: 'yes' },
    { value: false, label: 'no' },
  ]);
});

test('not a choice vox can ask: free text, numbers, one option, too many, labels that cannot be told apart or said', () => {
  const refused: unknown[] = [
    { type: 'string' },
    { type: 'number', enum: [1, 2] },
    { type: 'string', enum: ['only'] },
    { type: 'string', enum: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] },
    { type: 'string', enum: ['Red', 'red!'] },
    { type: 'string', enum: ['v1', 'v2'] },
    { type: 'string', enum: ['go', 'cancel'] },
    { type: 'string', enum: ['ok', '!!!'] },
    { type: 'string', enum: ['ok', 'x'.repeat(61)] },
    { type: 'string', enum: ['a', 2] },
    { type: 'string', oneOf: [{ title: 'no const' }, { const: 'b' }] },
    { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    null,
    'a string',
  ];
  for (const s of refused) assert.equal(optionsOf(s), undefined, JSON.stringify(s));
});

test('asked only with approveByVoice: true, not with notify: off, and only for a form of one choice', () => {
  assert.equal(choiceOf('Elicitation', payload, config({}), 'shop#1'), undefined, 'off by default');
  assert.equal(choiceOf('Elicitation', payload, config({ approveByVoice: true, notify: 'off' }), 'shop#1'), undefined);
  assert.equal(choiceOf('PermissionRequest', payload, config({ approveByVoice: true }), 'shop#1'), undefined);
  assert.equal(
    choiceOf('Elicitation', { ...payload, mode: 'url' }, config({ approveByVoice: true }), 'shop#1'),
    undefined,
    'a URL elicitation',
  );
  const two = {
    type: 'object',
    properties: { environment: ENV_SCHEMA.properties.environment, reason: { type: 'string' } },
  };
  assert.equal(
    choiceOf('Elicitation', { ...payload, requested_schema: two }, config({ approveByVoice: true }), 'shop#1'),
    undefined,
    'two fields',
  );
  assert.equal(
    choiceOf('Elicitation', { ...payload, requested_schema: '{broken' }, config({ approveByVoice: true }), 'shop#1'),
    undefined,
  );

  const c = choiceOf('Elicitation', payload, config({ approveByVoice: true }), 'shop#1');
  assert.deepEqual(c, {
    session: 'shop#1',
    projectName: 'shop',
    server: 'deploy',
    message: 'Which environment?',
    field: 'environment',
    options: [
      { value: 'staging', label: 'staging' },
      { value: 'production', label: 'production' },
    ],
    requestId: 'el-1',
  });
  // An mcp_tool hook gets the schema as its JSON (the ${requested_schema} substitution), and no id.
  const fromTool = choiceOf(
    'Elicitation',
    { ...payload, requested_schema: JSON.stringify(ENV_SCHEMA), elicitation_id: '' },
    config({ approveByVoice: true }),
    'shop#1',
  );
  assert.deepEqual(fromTool?.options, c?.options);
  assert.match(fromTool!.requestId, /^vox-[0-9a-f-]{36}$/);
});

test('what is said: who asks, the question, the answers', () => {
  const c = choiceOf('Elicitation', payload, config({ approveByVoice: true }), 'shop#1')!;
  assert.equal(choiceText(c), 'shop: deploy asks: Which environment? Say staging or production. Or say cancel.');
  assert.equal(
    choiceText({ ...c, message: 'Which one:' }),
    'shop: deploy asks: Which one? Say staging or production. Or say cancel.',
  );
  assert.equal(
    choiceText({
      ...c,
      message: 'Pick a colour.',
      options: optionsOf({ type: 'string', enum: ['red', 'green', 'blue'] })!,
    }),
    'shop: deploy asks: Pick a colour. Say red, green, or blue. Or say cancel.',
  );
});

test('a question or a label that cannot be said as written leaves the form to the screen, and says why', () => {
  const on = config({ approveByVoice: true });
  const ask = (over: Record<string, unknown>) => choiceOf('Elicitation', { ...payload, ...over }, on, 'shop#1');
  assert.equal(ask({}).unsaid, undefined);
  // Speech would drop the comment: "Deploy to staging??" would be heard.
  assert.match(
    ask({ message: 'Deploy to staging? <!-- this deletes the production database -->' })!.unsaid!,
    /markup, code or characters/,
  );
  assert.match(ask({ message: 'Deploy \u202e to staging?' })!.unsaid!, /markup, code or characters/);
  assert.match(ask({ message: `Deploy ${'now '.repeat(60)}?` })!.unsaid!, /longer than 200 characters/);
  // A tag is not spoken, yet "alert" would choose it.
  const tagged = { type: 'object', properties: { level: { type: 'string', enum: ['[alert]', 'calm'] } } };
  assert.match(ask({ requested_schema: tagged })!.unsaid!, /the option "\[alert\]" cannot be said as written/);
  // A question that is whole and plain is asked, with nothing cut.
  const long = `Deploy the ${'very '.repeat(30)}big release now?`;
  assert.ok(long.length > 120 && long.length <= 200);
  const c = ask({ message: long })!;
  assert.equal(c.unsaid, undefined);
  assert.match(choiceText(c), new RegExp(long.replace(/[?]/g, '\\?')));
});

test('a label that sounds like ending the dialog is not asked: "nevermind" means cancel', () => {
  for (const label of ['nevermind', 'Never mind', 'Cancel it', 'decline', 'Stop', 'abort'])
    assert.equal(optionsOf({ type: 'string', enum: ['go', label] }), undefined, label);
  assert.equal(matchChoice('Nevermind.', { options: optionsOf({ type: 'string', enum: ['go', 'wait'] })! }), 'cancel');
});

test('the answer: one label exactly (case, punctuation, courtesy words aside), cancel or decline; nothing else', () => {
  const c = { options: optionsOf({ type: 'string', enum: ['stg', 'prd'], enumNames: ['Staging', 'Production'] })! };
  assert.equal(matchChoice('Staging.', c), 'Staging');
  assert.equal(matchChoice(' production, please ', c), 'Production');
  assert.equal(matchChoice('Cancel.', c), 'cancel');
  assert.equal(matchChoice('never mind', c), 'cancel');
  assert.equal(matchChoice('Decline.', c), 'decline');
  for (const t of [
    '',
    '...',
    'stg',
    'staging or production',
    'production staging',
    'the staging one',
    'stage',
    'Thank you for watching.',
    'staging '.repeat(20),
  ]) {
    assert.equal(matchChoice(t, c), undefined, JSON.stringify(t));
  }
});

test("the hook output: accept with the option's value (not its label), or cancel and decline with no content", () => {
  const c = {
    field: 'environment',
    options: optionsOf({ type: 'string', enum: ['stg', 'prd'], enumNames: ['Staging', 'Production'] })!,
  };
  assert.deepEqual(choiceOutput('Production', c), {
    hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { environment: 'prd' } },
  });
  assert.deepEqual(choiceOutput('cancel', c), {
    hookSpecificOutput: { hookEventName: 'Elicitation', action: 'cancel' },
  });
  assert.deepEqual(choiceOutput('decline', c), {
    hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' },
  });
  const yesNo = { field: 'confirm', options: optionsOf({ type: 'boolean' })! };
  assert.deepEqual(choiceOutput(matchChoice('Yes.', yesNo)!, yesNo), {
    hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { confirm: true } },
  });
});
