/**
 * "api: run the tests" / "api, run the tests": the session a spoken (or
 * typed) text names first, and the text for it. A label is a project name or
 * a full `project#id`; the separator is a colon or a comma after it.
 */
export interface Addressed {
  session: string;
  text: string;
}

const ADDRESS = /^\s*([A-Za-z0-9][A-Za-z0-9._#-]{0,199})\s*[:,]\s*(\S[\s\S]*?)\s*$/;

/** The label said first and the rest, or undefined when the text names no session. */
export function parseAddress(said: string): Addressed | undefined {
  const m = ADDRESS.exec(said);
  if (!m) return undefined;
  return { session: m[1]!, text: m[2]! };
}
