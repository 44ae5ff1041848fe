/**
 * The JSON Schema checker of the tools' inputs. Tool inputs are written once
 * as JSON Schema: `tools/list` publishes them and `checkInput` validates calls
 * against the same objects. It handles the keywords the tools use, no more.
 */

/** The subset of JSON Schema that the tools' inputs use. */
export interface InputSchema {
  type?: JsonType | JsonType[];
  description?: string;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, InputSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | InputSchema;
  [keyword: string]: unknown;
}
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

function typeOf(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

/** What a schema allows, in words, for messages: "a number from 80 to 500". */
export function allowedText(s: InputSchema): string {
  if (s.enum) return `one of ${s.enum.map((v) => String(v)).join(', ')}`;
  const types = ([] as JsonType[]).concat(s.type ?? []);
  const words = types.map((t) => {
    if (t === 'number' || t === 'integer') {
      const noun = t === 'integer' ? 'a whole number' : 'a number';
      if (s.minimum !== undefined && s.maximum !== undefined) return `${noun} from ${s.minimum} to ${s.maximum}`;
      if (s.minimum !== undefined) return `${noun} of at least ${s.minimum}`;
      if (s.maximum !== undefined) return `${noun} of at most ${s.maximum}`;
      return noun;
    }
    if (t === 'string') {
      if (s.minLength !== undefined && s.maxLength !== undefined)
        return `a text of ${s.minLength} to ${s.maxLength} characters`;
      if (s.minLength) return 'a non-empty text';
      return 'a text';
    }
    return t === 'object' ? 'an object' : t === 'array' ? 'a list' : t;
  });
  return words.join(' or ') || 'any value';
}

/** A value as a short text for messages. */
export function show(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * Checks `value` against `schema`; returns every problem, each naming the
 * field and what it allows. Handles the keywords the tools use, nothing more.
 */
export function checkInput(schema: InputSchema, value: unknown, at = ''): string[] {
  const name = at || 'the input';
  const types = schema.type === undefined ? undefined : ([] as JsonType[]).concat(schema.type);
  const t = typeOf(value);
  if (types && !types.includes(t) && !(t === 'integer' && types.includes('number'))) {
    return [`${name} must be ${allowedText(schema)}, got ${show(value)}`];
  }
  if (schema.enum && !schema.enum.includes(value))
    return [`${name} must be ${allowedText(schema)}, got ${show(value)}`];
  const problems: string[] = [];
  if (typeof value === 'number') {
    if (
      (schema.minimum !== undefined && value < schema.minimum) ||
      (schema.maximum !== undefined && value > schema.maximum)
    ) {
      problems.push(`${name} must be ${allowedText(schema)}, got ${show(value)}`);
    }
  }
  if (typeof value === 'string') {
    const blank = schema.minLength !== undefined && schema.minLength > 0 && value.trim().length === 0;
    if (
      blank ||
      (schema.minLength !== undefined && value.length < schema.minLength) ||
      (schema.maxLength !== undefined && value.length > schema.maxLength)
    ) {
      problems.push(
        `${name} must be ${allowedText(schema)}, got ${value.length > 60 ? `${value.length} characters` : show(value)}`,
      );
    }
  }
  if (t === 'object') {
    const obj = value as Record<string, unknown>;
    const props = schema.properties ?? {};
    for (const key of schema.required ?? []) {
      if (obj[key] === undefined)
        problems.push(`"${key}" is required: ${props[key] ? allowedText(props[key]) : 'a value'}`);
    }
    for (const [key, v] of Object.entries(obj)) {
      const sub = props[key];
      if (sub) {
        if (v !== undefined) problems.push(...checkInput(sub, v, at ? `${at}.${key}` : key));
      } else if (schema.additionalProperties === false) {
        problems.push(`unknown field "${key}"; allowed: ${Object.keys(props).join(', ') || 'none'}`);
      }
    }
  }
  return problems;
}

/** Building blocks of the tools' output schemas. */
export const str: InputSchema = { type: 'string' };
export const strings: InputSchema = { type: 'array', items: str };
