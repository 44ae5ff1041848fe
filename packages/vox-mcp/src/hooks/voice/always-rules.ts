/**
 * What "always" grants when a permission prompt is answered by voice: only
 * permission rules that the question names aloud, never more than was heard.
 *
 * Claude Code offers suggestions with a prompt (`permission_suggestions`):
 * rules to add (`addRules`), directories to add (`addDirectories`), a mode
 * to switch to (`setMode`, e.g. acceptEdits), rules to replace or remove. A
 * spoken "always" used to grant them all while the question said only
 * "Allow, always, or deny?": one word could switch a session into
 * accept-edits mode. Now "always" is offered only when every suggestion adds
 * allow rules that can be said faithfully (their tool, their content said
 * character by character, and where they are kept), and the question says
 * them. A prompt with any other suggestion offers allow and deny only.
 */
import { spokenToolName } from '../wording.js';
import { spokenCommand } from './spoken-command.js';

/** Where a rule is kept, as said. */
const WHERE: Readonly<Record<string, string>> = {
  localSettings: 'in this project on this machine',
  projectSettings: 'in this project',
  userSettings: 'in every project',
  session: 'for this session',
};

/** Most rules one "always" may grant by voice. */
const MAX_RULES = 3;

export interface AlwaysRules {
  /** What the question says, e.g. "always allow Bash npm test in this project". */
  said: string;
  /** The suggestions "always" grants: exactly those said. */
  grant: unknown[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rules "always" would grant, said; undefined when "always" is not offered by voice. */
export function alwaysRules(suggestions: unknown[] | undefined): AlwaysRules | undefined {
  if (!suggestions?.length) return undefined;
  const parts: string[] = [];
  for (const s of suggestions) {
    if (!isObject(s) || s.type !== 'addRules' || s.behavior !== 'allow' || !Array.isArray(s.rules)) return undefined;
    const where = typeof s.destination === 'string' ? WHERE[s.destination] : undefined;
    if (!where || s.rules.length === 0) return undefined;
    const rules: string[] = [];
    for (const r of s.rules) {
      if (!isObject(r) || typeof r.toolName !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(r.toolName)) return undefined;
      const tool = spokenToolName(r.toolName);
      if (r.ruleContent === undefined) {
        rules.push(`every use of ${tool}`);
        continue;
      }
      if (typeof r.ruleContent !== 'string') return undefined;
      const content = spokenCommand(r.ruleContent);
      if (!content.ok || content.secrets.length) return undefined;
      rules.push(`${tool} ${content.text}`);
    }
    parts.push(`${rules.join(' and ')} ${where}`);
  }
  if (parts.length > MAX_RULES) return undefined;
  return { said: `always allow ${parts.join(', and ')}`, grant: suggestions };
}
