import { formatPublicKeyLine, isKeyBlob, looksLikeKeyAlgorithm, parsePublicKeyLine, sha256Fingerprint } from './public-key-line';

export interface AuthorizedKeyEntry {
  /** The line as found, without its line terminator. */
  line: string;
  /** The options field (`from="...",no-pty`), empty when absent. */
  options: string;
  algorithm: string;
  blob: string;
  comment: string;
  fingerprint: string;
}

export interface AuthorizedKeysChange {
  content: Buffer;
  /** Lines added or removed; 0 means `content` is the input unchanged. */
  changed: number;
}

/** Lines with their terminators, so untouched lines are written back byte for byte. */
function splitLines(content: Buffer): string[] {
  return content.toString('latin1').match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function withoutTerminator(segment: string): string {
  return segment.replace(/\r?\n$/, '');
}

/** Splits on whitespace outside double quotes, as sshd does for the options field. */
function tokenize(line: string): { token: string; end: number }[] {
  const tokens: { token: string; end: number }[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i];
    if (!quoted && (char === ' ' || char === '\t')) {
      if (current) tokens.push({ token: current, end: i });
      current = '';
      if (tokens.length === 3) break;
      continue;
    }
    if (char === '\\' && quoted && i + 1 < line.length) {
      current += char + line[i + 1];
      i += 1;
      continue;
    }
    if (char === '"') quoted = !quoted;
    current += char;
  }
  if (current && tokens.length < 3) tokens.push({ token: current, end: line.length });
  return tokens;
}

export function parseAuthorizedKeyLine(line: string): AuthorizedKeyEntry | null {
  const text = line.trim();
  if (!text || text.startsWith('#')) return null;
  const tokens = tokenize(text);
  for (const start of [0, 1]) {
    const algorithm = tokens[start]?.token;
    const blob = tokens[start + 1]?.token;
    if (algorithm && blob && looksLikeKeyAlgorithm(algorithm) && isKeyBlob(algorithm, blob)) {
      return {
        line,
        options: start === 1 ? tokens[0].token : '',
        algorithm,
        blob,
        comment: text.slice(tokens[start + 1].end).trim(),
        fingerprint: sha256Fingerprint(blob),
      };
    }
  }
  return null;
}

export function parseAuthorizedKeys(content: Buffer): AuthorizedKeyEntry[] {
  return splitLines(content)
    .map((segment) => parseAuthorizedKeyLine(withoutTerminator(segment)))
    .filter((entry): entry is AuthorizedKeyEntry => entry !== null);
}

function sameKey(entry: AuthorizedKeyEntry | null, algorithm: string, blob: string): boolean {
  return entry !== null && entry.algorithm === algorithm && entry.blob === blob;
}

/** Appends the key unless a line with the same type and blob exists (comments and options ignored). */
export function appendAuthorizedKey(content: Buffer, publicLine: string): AuthorizedKeysChange {
  const key = parsePublicKeyLine(publicLine);
  if (parseAuthorizedKeys(content).some((entry) => sameKey(entry, key.algorithm, key.blob))) return { content, changed: 0 };
  const separator = content.length && content[content.length - 1] !== 0x0a ? '\n' : '';
  return { content: Buffer.concat([content, Buffer.from(`${separator}${formatPublicKeyLine(key)}\n`, 'latin1')]), changed: 1 };
}

/** Drops every line holding the same type and blob; all other bytes stay as they were. */
export function dropAuthorizedKey(content: Buffer, publicLine: string): AuthorizedKeysChange {
  const key = parsePublicKeyLine(publicLine);
  const segments = splitLines(content);
  const kept = segments.filter((segment) => !sameKey(parseAuthorizedKeyLine(withoutTerminator(segment)), key.algorithm, key.blob));
  if (kept.length === segments.length) return { content, changed: 0 };
  return { content: Buffer.from(kept.join(''), 'latin1'), changed: segments.length - kept.length };
}
