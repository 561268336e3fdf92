import { ClientBase } from 'pg';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * One row of a binary COPY: field i is data[start[i], start[i] + length[i]), or NULL when
 * length[i] is -1. Valid only during the callback (the bytes belong to the connection's buffer).
 */
export interface BinaryRow {
  data: Buffer;
  start: Int32Array;
  length: Int32Array;
}

/**
 * Runs `COPY (select) TO STDOUT (FORMAT binary)` on a pg client and hands each row to onRow,
 * synchronously as its message is parsed, so rows never pile up in memory (the socket is not
 * read while onRow works). No per-field strings or objects: the caller reads the bytes.
 */
export function copyBinaryRows(client: ClientBase, select: string, fields: number, onRow: (row: BinaryRow) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const row: BinaryRow = { data: Buffer.alloc(0), start: new Int32Array(fields), length: new Int32Array(fields) };
    let headerSeen = false;
    let failed: Error | undefined;
    const fail = (error: Error) => (failed ??= error);
    const submittable = {
      submit(connection: { query(text: string): void }) {
        connection.query(`COPY (${select}) TO STDOUT (FORMAT binary)`);
      },
      handleCopyData(message: { chunk: Buffer }) {
        if (failed) return;
        try {
          let at = 0;
          const data = message.chunk;
          if (!headerSeen) {
            if (data.length < 19 || !data.subarray(0, 11).equals(SIGNATURE)) throw new Error('Unexpected binary COPY header');
            at = 19 + data.readInt32BE(15);
            headerSeen = true;
          }
          if (at >= data.length) return;
          const count = data.readInt16BE(at);
          if (count === -1) return; // trailer
          if (count !== fields) throw new Error(`Binary COPY row has ${count} fields, expected ${fields}`);
          at += 2;
          for (let i = 0; i < fields; i++) {
            const length = (data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3];
            at += 4;
            row.start[i] = at;
            row.length[i] = length;
            if (length > 0) at += length;
          }
          // PostgreSQL sends one message per row; anything else is a protocol change to notice.
          if (at !== data.length) throw new Error('Binary COPY row does not fill its message');
          row.data = data;
          onRow(row);
        } catch (error) {
          fail(error as Error);
        }
      },
      handleCommandComplete() {},
      handleEmptyQuery() {},
      handleError(error: Error) {
        reject(failed ?? error);
      },
      handleReadyForQuery() {
        if (failed) reject(failed);
        else resolve();
      },
    };
    client.query(submittable as never);
  });
}
