import { ClientBase } from 'pg';
import { copyBinaryRows } from './binary-copy';

/**
 * JSON written straight from UTF-8 bytes, byte for byte what JSON.stringify writes for the same
 * text: ", \ and the short escapes, other control characters as lower-case \u00xx, nothing else
 * (UTF-8 from PostgreSQL holds no lone surrogates). For answers of many rows, where building a
 * string per field, an object per row and then the JSON costs node more than the database.
 */

/** The JSON string of data[from, from + length) at out[at...]; returns the end. out needs 6 bytes per input byte, plus 2. */
export function writeJsonString(out: Buffer, at: number, data: Buffer, from: number, length: number): number {
  out[at++] = 0x22;
  for (let i = from, end = from + length; i < end; i++) {
    const b = data[i];
    if (b >= 0x20 && b !== 0x22 && b !== 0x5c) out[at++] = b;
    else at = writeEscape(out, at, b);
  }
  out[at++] = 0x22;
  return at;
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');

function writeEscape(out: Buffer, at: number, b: number): number {
  out[at++] = 0x5c;
  switch (b) {
    case 0x22: out[at++] = 0x22; break;
    case 0x5c: out[at++] = 0x5c; break;
    case 0x08: out[at++] = 0x62; break; // b
    case 0x09: out[at++] = 0x74; break; // t
    case 0x0a: out[at++] = 0x6e; break; // n
    case 0x0c: out[at++] = 0x66; break; // f
    case 0x0d: out[at++] = 0x72; break; // r
    default:
      out[at++] = 0x75; out[at++] = 0x30; out[at++] = 0x30; // u00
      out[at++] = HEX[b >> 4];
      out[at++] = HEX[b & 15];
  }
  return at;
}

export interface JsonRows {
  /** The JSON array of the rows' objects, UTF-8. */
  json: Buffer;
  count: number;
}

/**
 * Runs `select` (text columns only, one per key, in order) as a binary COPY and renders the
 * rows as a JSON array of objects whose values are the columns' text (null for NULL), the same
 * bytes as JSON.stringify of those objects. `select` takes no parameters (COPY has none): only
 * values the server made itself belong in it.
 */
export async function copyJsonObjects(client: ClientBase, select: string, keys: string[]): Promise<JsonRows> {
  const names = keys.map((key, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`));
  const fixed = 2 + names.reduce((n, name) => n + name.length + 6, 0); // braces, comma, names, quotes or null
  const chunks: Buffer[] = [Buffer.from('[')];
  let out = Buffer.allocUnsafe(CHUNK);
  let at = 0;
  let count = 0;
  await copyBinaryRows(client, select, keys.length, ({ data, start, length }) => {
    const room = fixed + data.length * 6;
    if (at + room > out.length) {
      chunks.push(out.subarray(0, at));
      out = Buffer.allocUnsafe(Math.max(CHUNK, room));
      at = 0;
    }
    if (count++ > 0) out[at++] = 0x2c; // ,
    for (let f = 0; f < keys.length; f++) {
      at += names[f].copy(out, at);
      if (length[f] === -1) at += out.write('null', at, 'latin1');
      else at = writeJsonString(out, at, data, start[f], length[f]);
    }
    out[at++] = 0x7d; // }
  });
  chunks.push(out.subarray(0, at), Buffer.from(']'));
  return { json: Buffer.concat(chunks), count };
}

const CHUNK = 1 << 20;
