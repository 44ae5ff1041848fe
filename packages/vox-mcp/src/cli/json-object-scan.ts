/**
 * Where a JSON object arriving on a stream ends, and whether it stays within
 * bounds, found in one pass over its bytes as they arrive. `vox hook` reads
 * its payload from a stdin that Claude Code does not always close: it must
 * know when the object is complete without parsing it again for each chunk
 * (quadratic: 500,000 `{"a":` took 11 s), and refuse what would cost too much
 * to parse (deep nesting, millions of values) before it has read it all.
 *
 * Only the structure is followed (strings and their escapes, brackets,
 * separators): JSON.parse validates the whole, once, after the end. Every
 * structural character is ASCII and no byte of a multi-byte UTF-8 sequence
 * is, so the bytes are scanned as they come, however the chunks split them.
 */

export interface ScanBounds {
  /** Most objects and arrays open at once. */
  maxDepth: number;
  /** Most values (objects, arrays, members and elements, counted by their brackets and separators). */
  maxValues: number;
}

/** `end`: the object closed after this many bytes of the chunk; `refused`: why it is not read further; undefined: more to come. */
export type ScanResult = { end: number } | { refused: string } | undefined;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

export class JsonObjectScan {
  private depth = 0;
  private values = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly bounds: ScanBounds) {}

  /** Follows the next chunk of the input. After an `end` or a `refused`, push no more. */
  push(chunk: Uint8Array): ScanResult {
    const { maxDepth, maxValues } = this.bounds;
    let { depth, values, inString, escaped } = this;
    let result: ScanResult;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (depth === 0) {
        // JSON's whitespace before the object; anything else but its brace is not an object.
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (c !== OPEN_OBJECT) {
          result = { refused: 'it does not start with "{"' };
          break;
        }
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (++depth > maxDepth) {
          result = { refused: `it nests deeper than ${maxDepth} levels` };
          break;
        }
        if (++values > maxValues) {
          result = { refused: `it holds more than ${maxValues} values` };
          break;
        }
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) {
          result = { end: i + 1 };
          break;
        }
      } else if ((c === COMMA || c === COLON) && ++values > maxValues) {
        result = { refused: `it holds more than ${maxValues} values` };
        break;
      }
    }
    this.depth = depth;
    this.values = values;
    this.inString = inString;
    this.escaped = escaped;
    return result;
  }
}
