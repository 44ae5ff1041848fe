/** The Host check: exactly a loopback name and an optional port, nothing that only starts like one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isLoopbackHost } from '../../src/access/security.js';

describe('isLoopbackHost', () => {
  const allowed = [
    '127.0.0.1',
    '127.0.0.1:8421',
    '127.1.2.3:80',
    'localhost',
    'LOCALHOST:8421',
    '[::1]',
    '[::1]:8421',
    undefined,
  ];
  const refused = [
    '[::1].evil.com',
    '127.0.0.1:80@evil.com',
    '127.0.0.1.evil.com',
    'localhost.evil.com',
    'evil.com:8421',
    '127.0.0.1:8421:1',
    '127.0.0.1:99999',
    '127.0.0.256',
    '127.0.0.1 ',
    ' 127.0.0.1',
    '',
    '[::1',
    '[::2]',
    'localhost:80/x',
    '0.0.0.0',
    '192.168.1.10',
  ];
  for (const host of allowed) it(`allows ${JSON.stringify(host)}`, () => assert.equal(isLoopbackHost(host), true));
  for (const host of refused) it(`refuses ${JSON.stringify(host)}`, () => assert.equal(isLoopbackHost(host), false));
});
