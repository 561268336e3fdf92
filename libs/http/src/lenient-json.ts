/**
 * INPUT_DATA as real clients send it (docs/api/vault.md, "INPUT_DATA"). Strict JSON first; otherwise a tolerant
 * reading that accepts single-quoted strings, unquoted keys and values, Python's True,
 * False and None, and trailing commas. It never evaluates code.
 *
 * An unquoted value runs to the next `,`, `}` or `]` and is trimmed, so it may contain
 * spaces, `.`, `-`, `/`, `:` or `@`; it may not contain `{` or `[`, which would make its
 * end ambiguous. Unquoted `true`, `false`, `null` (and `True`, `False`, `None`) become
 * those JSON values. Unquoted numbers become numbers only when the number prints back to
 * the same text, so `00123`, `1.50` or a 20-digit id stay strings and lose nothing.
 * Everything else unquoted is a string. In lenient mode the document must be an object
 * or an array.
 */

export const MAX_INPUT_DATA_BYTES = 1024 * 1024;
export const MAX_INPUT_DATA_DEPTH = 32;

export class InputDataSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputDataSyntaxError';
  }
}

export function parseLenientJson(text: string): unknown {
  if (Buffer.byteLength(text, 'utf8') > MAX_INPUT_DATA_BYTES) {
    throw new InputDataSyntaxError('INPUT_DATA is larger than the 1 MiB limit');
  }
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (source.trim() === '') throw new InputDataSyntaxError('INPUT_DATA is empty');

  let strict: { value: unknown } | undefined;
  try {
    strict = { value: JSON.parse(source) };
  } catch {
    strict = undefined;
  }
  if (strict !== undefined) {
    if (strictJsonDepth(source) > MAX_INPUT_DATA_DEPTH) throw tooDeep();
    return strict.value;
  }
  return new TolerantParser(source).parseDocument();
}

/** Exact key first, then the first key that matches ignoring case. Own keys only. */
export function pickField(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const wanted = name.toLowerCase();
  const key = Object.keys(obj).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : obj[key];
}

function tooDeep(): InputDataSyntaxError {
  return new InputDataSyntaxError(`INPUT_DATA is nested more than ${MAX_INPUT_DATA_DEPTH} levels deep`);
}

// Only called on text JSON.parse accepted, so brackets inside strings are the only trap.
function strictJsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      deepest = Math.max(deepest, ++depth);
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  return deepest;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const BARE_WORDS: Record<string, unknown> = { true: true, false: false, null: null, True: true, False: false, None: null };
const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '"': '"', "'": "'", '\\': '\\', '/': '/' };

class TolerantParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    this.skipWhitespace();
    const first = this.text[this.pos];
    if (first !== '{' && first !== '[') throw this.unexpected("'{' or '['");
    const value = this.parseValue(1);
    this.skipWhitespace();
    if (this.pos < this.text.length) throw this.unexpected('nothing more');
    return value;
  }

  private parseValue(depth: number): unknown {
    this.skipWhitespace();
    const c = this.text[this.pos];
    if (c === '{') return this.parseObject(depth);
    if (c === '[') return this.parseArray(depth);
    if (c === '"' || c === "'") return this.parseQuoted();
    return this.parseBareValue();
  }

  private parseObject(depth: number): Record<string, unknown> {
    if (depth > MAX_INPUT_DATA_DEPTH) throw tooDeep();
    this.pos++;
    const obj: Record<string, unknown> = {};
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return obj;
      }
      const key = this.parseKey();
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') throw this.unexpected("':'");
      this.pos++;
      // defineProperty, like JSON.parse: a "__proto__" key must stay data, not a prototype.
      Object.defineProperty(obj, key, { value: this.parseValue(depth + 1), enumerable: true, writable: true, configurable: true });
      if (this.endOfMember('}')) return obj;
    }
  }

  private parseArray(depth: number): unknown[] {
    if (depth > MAX_INPUT_DATA_DEPTH) throw tooDeep();
    this.pos++;
    const items: unknown[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return items;
      }
      items.push(this.parseValue(depth + 1));
      if (this.endOfMember(']')) return items;
    }
  }

  /** After a member: true when the container closed, false after a separating comma. */
  private endOfMember(close: '}' | ']'): boolean {
    this.skipWhitespace();
    const c = this.text[this.pos];
    if (c === close) {
      this.pos++;
      return true;
    }
    if (c === ',') {
      this.pos++;
      return false;
    }
    throw this.unexpected(`',' or '${close}'`);
  }

  private parseKey(): string {
    const c = this.text[this.pos];
    if (c === '"' || c === "'") return this.parseQuoted();
    const start = this.pos;
    while (this.pos < this.text.length && this.text[this.pos] !== ':') {
      if ('{}[],"\''.includes(this.text[this.pos])) {
        throw this.unexpected(this.text.slice(start, this.pos).trim() === '' ? 'a field name' : "':'");
      }
      this.pos++;
    }
    const key = this.text.slice(start, this.pos).trim();
    if (key === '') {
      this.pos = start;
      throw this.unexpected('a field name');
    }
    return key;
  }

  private parseBareValue(): unknown {
    const start = this.pos;
    while (this.pos < this.text.length && !',}]'.includes(this.text[this.pos])) {
      if (this.text[this.pos] === '{' || this.text[this.pos] === '[') throw this.unexpected("',', '}' or ']'");
      this.pos++;
    }
    const word = this.text.slice(start, this.pos).trim();
    if (word === '') {
      this.pos = start;
      this.skipWhitespace();
      throw this.unexpected('a value');
    }
    if (Object.hasOwn(BARE_WORDS, word)) return BARE_WORDS[word];
    if (JSON_NUMBER.test(word) && String(Number(word)) === word) return Number(word);
    return word;
  }

  private parseQuoted(): string {
    const quote = this.text[this.pos];
    const start = this.pos;
    this.pos++;
    let result = '';
    let chunkStart = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === quote) {
        result += this.text.slice(chunkStart, this.pos);
        this.pos++;
        return result;
      }
      if (c === '\\') {
        result += this.text.slice(chunkStart, this.pos) + this.parseEscape();
        chunkStart = this.pos;
      } else {
        this.pos++;
      }
    }
    throw new InputDataSyntaxError(`INPUT_DATA is not valid JSON: unterminated string starting at position ${start}`);
  }

  /** Reads the escape at pos (a backslash); unknown escapes are kept as written, as Python does. */
  private parseEscape(): string {
    const start = this.pos;
    const c = this.text[this.pos + 1];
    if (c === undefined) {
      this.pos++;
      return '\\';
    }
    if (Object.hasOwn(SIMPLE_ESCAPES, c)) {
      this.pos += 2;
      return SIMPLE_ESCAPES[c];
    }
    const hexLength = c === 'u' ? 4 : c === 'x' ? 2 : 0;
    if (hexLength > 0) {
      const hex = this.text.slice(this.pos + 2, this.pos + 2 + hexLength);
      if (hex.length === hexLength && /^[0-9a-fA-F]+$/.test(hex)) {
        this.pos += 2 + hexLength;
        return String.fromCharCode(parseInt(hex, 16));
      }
      if (c === 'u') {
        throw new InputDataSyntaxError(`INPUT_DATA is not valid JSON: invalid \\u escape at position ${start}`);
      }
    }
    this.pos += 2;
    return '\\' + c;
  }

  private skipWhitespace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private unexpected(expected: string): InputDataSyntaxError {
    const c = this.text[this.pos];
    const found = c === undefined ? 'unexpected end of input' : `unexpected ${describe(c)}`;
    return new InputDataSyntaxError(`INPUT_DATA is not valid JSON: ${found} at position ${this.pos}, expected ${expected}`);
  }
}

function describe(c: string): string {
  return `'${JSON.stringify(c).slice(1, -1)}'`;
}
