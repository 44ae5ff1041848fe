import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MIN_SPLIT_CHARS, splitFirstPhrase } from '../../src/text/phrase.js';

describe('splitFirstPhrase', () => {
  it('splits after a comma, keeping the comma with the first phrase', () => {
    assert.deepEqual(splitFirstPhrase('Three services went out to staging, and the smoke tests run right now.'), [
      'Three services went out to staging,',
      'and the smoke tests run right now.',
    ]);
  });

  it('splits before a clause word when there is no pause in the punctuation', () => {
    assert.deepEqual(splitFirstPhrase('The build finished and all the tests passed on the main branch today.'), [
      'The build finished',
      'and all the tests passed on the main branch today.',
    ]);
  });

  it('prefers a pause to an earlier clause word', () => {
    assert.deepEqual(
      splitFirstPhrase('The release we planned when we met is late; it ships on Friday at noon with the fixes.'),
      ['The release we planned when we met is late;', 'it ships on Friday at noon with the fixes.'],
    );
  });

  it('splits before a dash and gives the dash to neither side', () => {
    assert.deepEqual(splitFirstPhrase('One test failed on Node 26 \u2014 the watch test, as it did last week.'), [
      'One test failed on Node 26',
      'the watch test, as it did last week.',
    ]);
  });

  it('leaves short sentences whole', () => {
    const short = 'Build finished, all green.';
    assert.ok(short.length < MIN_SPLIT_CHARS);
    assert.equal(splitFirstPhrase(short), undefined);
  });

  it('leaves a sentence whole when the only place is too early or too late', () => {
    // "Yes," is too short a phrase; the clause word comes after 60 % of the sentence.
    assert.equal(
      splitFirstPhrase('Yes, the deployment to every region finished without errors today and then'),
      undefined,
    );
    assert.equal(splitFirstPhrase('Everything in the repository compiles cleanly on all platforms now'), undefined);
  });

  it('never splits inside a number or a word that only contains a clause word', () => {
    assert.equal(splitFirstPhrase('We processed 1,000,000 records in the nightly batch job quickly.'), undefined);
    assert.equal(splitFirstPhrase('The android build orbits the release train nicely today.'), undefined);
  });

  it('skips a phrase that would be too short and takes the next place', () => {
    assert.deepEqual(splitFirstPhrase('Well, the parser passed its tests, and the printer failed again today.'), [
      'Well, the parser passed its tests,',
      'and the printer failed again today.',
    ]);
  });
});
