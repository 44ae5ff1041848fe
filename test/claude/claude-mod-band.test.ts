/**
 * The vox mod's pure part (plugin/hooks/band.ts): what it draws from voxd's
 * status answer, which labels are this session's, where VOX_HOME and voxd
 * are, and the project's approval by voice. The status comes from a real
 * voxd, so the mod's own restatement of the answer's shape is checked too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approvesByVoice,
  describe as describeBand,
  endpointOf,
  isMine,
  myLabels,
  OFF,
  shortId,
  tokenOf,
  voxHomeOf,
  type VoxStatus,
} from '../../plugin/hooks/band.js';
import { shortId as voxShortId } from '../../packages/vox-mcp/src/project/session.js';
import { removeDir, startDaemon, waitFor, type Daemon } from '../helpers/daemon.js';

const ID = '3c07f0aa-1111-2222-3333-444455556666';

describe("the vox mod's band", () => {
  let d: Daemon;
  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d?.stop();
    if (d) removeDir(d.home);
  });

  test('the short id is the one vox puts in a label', () => {
    for (const id of [ID, 'x', '--', 'ABCdef123456']) assert.equal(shortId(id), voxShortId(id));
    assert.ok(isMine('web#3c07f0', ['3c07f0']));
    assert.ok(!isMine('web#3c07f1', ['3c07f0']));
    assert.ok(!isMine('3c07f0', ['3c07f0']), 'a label without # is no session of Claude Code');
    assert.ok(!isMine(undefined, ['3c07f0']));
  });

  test("from a real voxd's status: who speaks, with which voice, the queue, this session's voice", async () => {
    const mine = `web#${shortId(ID)}`;
    const text = (n: number) => `Sentence number ${n} is long enough to keep the sink busy for a few seconds at least.`;
    const first = await d.api('POST', '/v1/speak', { text: text(1), session: 'other#abc123', priority: 'text' });
    await d.api('POST', '/v1/speak', { text: text(2), session: mine, priority: 'text' });
    await waitFor(
      async () => ((await d.api('GET', '/v1/status')).body.playing?.id === first.body.id ? true : undefined),
      15_000,
      'the first to play',
    );
    const status = (await d.api('GET', '/v1/status?limit=0')).body as VoxStatus;
    assert.deepEqual(myLabels(status, [shortId(ID)]), [mine]);
    const b = describeBand(status, [shortId(ID)], true);
    assert.match(
      b.band,
      /^vox · speaking: other#abc123, voice \S+ · 1 queued · this session: voice \S+ · mic: closed · approval by voice: on$/,
    );
    assert.equal(b.status, 'speaking other#abc123, 1 queued');
    const meFirst = describeBand({ ...status, playing: { id: 'x', session: mine } }, [shortId(ID)], false);
    assert.match(meFirst.status, /^speaking \(this session\), 1 queued$/);
    assert.match(meFirst.band, /speaking: web#3c07f0 \(this session\)/);
    await d.api('POST', '/v1/stop', {});
  });

  test('quiet, the microphone, and nothing known', () => {
    const b = describeBand(
      { queue: { length: 0 }, playing: null, listening: { id: 'l1', session: 'web#3c07f0', open: true } },
      ['3c07f0'],
      false,
    );
    assert.equal(b.status, 'quiet, mic open');
    assert.equal(
      b.band,
      'vox · quiet · 0 queued · this session: no voice yet · mic: open, web#3c07f0 (this session) · approval by voice: off',
    );
    assert.deepEqual(OFF, { status: 'off', band: 'vox: off' });
  });

  test('VOX_HOME, voxd.json and the token as the mod finds them', () => {
    assert.equal(voxHomeOf({ VOX_HOME: '/v', HOME: '/h' }, 'other'), '/v');
    assert.equal(voxHomeOf({ HOME: '/h' }, 'other'), '/h/.local/state/vox');
    assert.equal(voxHomeOf({ HOME: '/h', XDG_STATE_HOME: '/x' }, 'other'), '/x/vox');
    assert.equal(voxHomeOf({ HOME: '/h' }, 'darwin'), '/h/Library/Application Support/vox');
    assert.equal(voxHomeOf({}, 'other'), undefined);
    assert.equal(endpointOf('{"host":"127.0.0.1","port":4100}'), 'http://127.0.0.1:4100');
    assert.equal(endpointOf('{"host":"10.0.0.2","port":4100}'), undefined, 'only this machine');
    assert.equal(endpointOf('{"host":"127.0.0.1","port":70000}'), undefined);
    assert.equal(endpointOf('not json'), undefined);
    assert.equal(tokenOf(`${d.token}\n`), d.token);
    assert.equal(tokenOf('abc\r\nX-Evil: 1'), undefined, 'nothing but a token goes into the header');
  });

  test('approval by voice: the front matter only, true as YAML spells it', () => {
    assert.ok(approvesByVoice('---\nnotify: normal\napproveByVoice: true\n---\n'));
    assert.ok(approvesByVoice('---\napproveByVoice: True # yes\n---\nbody\n'));
    assert.ok(!approvesByVoice('---\napproveByVoice: false\n---\n'));
    assert.ok(!approvesByVoice('---\nnotify: normal\n---\napproveByVoice: true\n'), 'the body is no setting');
    assert.ok(!approvesByVoice('approveByVoice: true\n'), 'no front matter');
  });
});
