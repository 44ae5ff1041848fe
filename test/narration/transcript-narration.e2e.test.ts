/**
 * Narration from the transcript, end to end without Claude Code: the real
 * `vox mcp` over stdio (the SDK's Client), a real voxd with the file sink,
 * and hook calls as the plugin's mcp_tool entries make them, whose
 * `transcript_path` is a copy of a real Claude Code 2.1.332 transcript
 * (test/fixtures/transcripts) that grows line by line, and mid-line, while
 * the turn goes on. What MessageDisplay missed is narrated from the
 * transcript, once, in the reply's order; what it gave is not said again; a
 * resumed session's history is never read out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpToolHook, type HookEvent } from '../../packages/vox-mcp/src/claude/hook-entries.js';
import {
  FIXTURES,
  VOX,
  removeDir,
  startDaemon,
  tempDir,
  waitFor,
  writeConfig,
  type Daemon,
} from '../helpers/daemon.js';
import { substitute } from '../helpers/hook-input.js';

const SESSION = '27b69222-0f7d-4ca2-901f-b39ce5346669';
const LABEL = 'billing#27b692';
/** The real transcript's lines, each with its newline. */
const LINES = readFileSync(join(FIXTURES, 'transcripts', 'claude-2.1.332-narrated-session.jsonl'), 'utf8')
  .split(/(?<=\n)/)
  .filter(Boolean);
const textOf = (i: number): string => (JSON.parse(LINES[i]!).message.content[0].text as string).trim();
/** A real assistant line with another uuid and text (a message of several in one turn). */
const assistantLine = (uuid: string, text: string): string => {
  const o = JSON.parse(LINES[36]!);
  o.uuid = uuid;
  o.message.content = [{ type: 'text', text }];
  return `${JSON.stringify(o)}\n`;
};

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
  outcome: string;
}

describe('narration from the transcript through vox mcp', () => {
  let d: Daemon;
  let root: string;
  let project: string;
  let transcript: string;
  let client: Client;

  const history = async (): Promise<HistoryEntry[]> =>
    ((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).filter((h) => h.session === LABEL);
  const grow = (...parts: string[]) => appendFileSync(transcript, parts.join(''));
  async function hook(event: HookEvent, fields: Record<string, unknown> = {}): Promise<CallToolResult> {
    const payload = {
      session_id: SESSION,
      cwd: project,
      transcript_path: transcript,
      hook_event_name: event,
      ...fields,
    };
    const r = (await client.callTool({
      name: 'hook',
      arguments: substitute(mcpToolHook(event, 'vox').input, payload),
    })) as CallToolResult;
    assert.notEqual(r.isError, true, JSON.stringify(r));
    return r;
  }
  /**
   * The turn ends with the next prompt, whose hook returns once the session's
   * earlier batches reached voxd: then the session's texts, oldest first.
   */
  async function nextPrompt(): Promise<string[]> {
    await hook('UserPromptSubmit');
    await d.idle();
    return (await history()).map((h) => h.text).reverse();
  }

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-transcript-');
    project = join(root, 'billing');
    writeConfig(project, 'narrate: stream');
    mkdirSync(join(root, '.claude', 'projects', '-billing'), { recursive: true });
    transcript = join(root, '.claude', 'projects', '-billing', `${SESSION}.jsonl`);
    // A resumed session: its first turn, reply and all, is history.
    writeFileSync(transcript, LINES.slice(0, 34).join(''));
    client = new Client({ name: 'claude-code-like', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [VOX, 'mcp'],
        cwd: project,
        env: { ...d.env, VOX_NO_AUTOSTART: '1' } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
  });
  after(async () => {
    await client?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  test('MessageDisplay absent: the reply is narrated from the transcript once, after its line is whole', async () => {
    await hook('UserPromptSubmit');
    grow(...LINES.slice(34, 36));
    await hook('PostToolUse');
    // Claude Code mid-line: nothing of it yet.
    const line = LINES[36]!;
    grow(line.slice(0, 300));
    await hook('PostToolUse');
    grow(line.slice(300), ...LINES.slice(37, 40));
    await hook('Stop', { last_assistant_message: textOf(36), stop_hook_active: false });
    await hook('PostToolUse');
    await hook('SubagentStop');
    const said = await nextPrompt();
    // The history's reply ("I looked at the failing build first ...") is never read, nor a Stop summary added.
    assert.deepEqual(said, [textOf(36).replace(/\n/g, ' ')]);
  });

  test('both paths: what MessageDisplay gave is not said again from the transcript', async () => {
    const before = (await history()).length;
    await hook('MessageDisplay', {
      message_id: 'b0d87406-2c6f-4c81-951a-8d8030dff74b',
      index: 0,
      final: true,
      delta: `${textOf(43)}\n`,
    });
    grow(...LINES.slice(40, 47));
    await hook('PostToolUse');
    await hook('Stop', { last_assistant_message: textOf(43), stop_hook_active: false });
    const said = await nextPrompt();
    assert.equal(said.length, before + 1, JSON.stringify(said));
    assert.equal(said.at(-1), textOf(43).replace(/\n/g, ' '));
  });

  test("mixed: MessageDisplay gives the first and last messages, the transcript the middle one, in the reply's order", async () => {
    const before = (await history()).length;
    grow(LINES[48]!);
    await hook('MessageDisplay', { message_id: 'md-1', index: 0, final: true, delta: 'Alpha: I read the parser.\n' });
    grow(assistantLine('aaaaaaaa-0000-4000-8000-000000000001', 'Alpha: I read the parser.\n'));
    await hook('PostToolUse');
    // Between tool calls, a text MessageDisplay never saw.
    grow(assistantLine('aaaaaaaa-0000-4000-8000-000000000002', 'Beta: the month table was wrong.\n'));
    await hook('MessageDisplay', { message_id: 'md-3', index: 0, final: false, delta: 'Gamma: fixed it.\n' });
    await hook('MessageDisplay', { message_id: 'md-3', index: 1, final: true, delta: 'The tests pass.\n' });
    grow(assistantLine('aaaaaaaa-0000-4000-8000-000000000003', 'Gamma: fixed it.\nThe tests pass.\n'));
    await hook('Stop', { last_assistant_message: 'Gamma: fixed it.\nThe tests pass.', stop_hook_active: false });
    const said = (await nextPrompt()).slice(before);
    assert.deepEqual(said, [
      'Alpha: I read the parser.',
      'Beta: the month table was wrong.',
      'Gamma: fixed it. The tests pass.',
    ]);
  });

  test('Stop before the transcript shows the last text: it is told from the payload, and not again when the line comes', async () => {
    const before = (await history()).length;
    grow(...LINES.slice(55, 58));
    await hook('Stop', { last_assistant_message: textOf(58), stop_hook_active: false });
    await waitFor(async () => ((await history()).length > before ? true : undefined), 20_000, 'the last text');
    grow(...LINES.slice(58, 63));
    await hook('SubagentStop');
    assert.equal((await nextPrompt()).length, before + 1, 'the line of a text told at Stop is not told again');
    grow(...LINES.slice(63, 68));
    await hook('PostToolUse');
    const said = (await nextPrompt()).slice(before);
    assert.equal(said.length, 2, JSON.stringify(said));
    assert.match(said[0]!, /^I looked at the failing build first\. .*A code block of 3 lines\./);
    assert.equal(said[1], 'Understood, stopping there.');
  });
});
