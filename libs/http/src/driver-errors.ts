/*
 * Errors from the database driver that are not bugs of ours: input PostgreSQL refused as
 * data (SQLSTATE class 22), or the database being out of reach. The edge checks
 * (edge-input.ts) refuse the known cases first with a message naming the field; this is the
 * net under them, so such input never becomes a 500.
 */

const DATA_MESSAGES: Record<string, string> = {
  '22001': 'A value in the request is too long to be stored',
  '22003': 'A number in the request is out of range',
  '22007': 'A date in the request is invalid',
  '22008': 'A date in the request is out of range',
  '22021': 'A value in the request holds a character that cannot be stored',
  '22P02': 'A value in the request has the wrong form',
  '22P05': 'A value in the request holds a character that cannot be stored',
};

/** The client-facing message for a data exception PostgreSQL raised, or undefined. */
export function dataErrorMessage(error: unknown): string | undefined {
  const code = sqlState(error);
  if (!code?.startsWith('22')) return undefined;
  return DATA_MESSAGES[code] ?? 'A value in the request cannot be stored';
}

// Connection refused or reset, the server shutting down or starting (57P01-57P03), a
// connection exception (class 08, with 08001 when no host of a multi-host DATABASE_URL takes a
// read-write session), a primary demoted under the connection (25006: read-only transaction),
// or the pool giving up waiting for a connection.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /Connection terminated/i,
  /terminating connection/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections|not accepting connections)/i,
  /cannot execute \w+ in a read-only transaction/i,
  /Client has encountered a connection error/i,
  /Connection is not established/i,
  /canceling statement due to statement timeout/i,
  /Query read timeout/i,
  // TypeORM, when the connection of a transaction died under it.
  /query runner was already released|Query runner already released/i,
];

/** True when the error says the database is out of reach (or too slow), not that the request was wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, i = 0; e && i < 4; e = (e as { driverError?: unknown; cause?: unknown }).driverError ?? (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08') || code === '25006' || code === '57014' || /^57P0[123]$/.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}

function sqlState(error: unknown): string | undefined {
  const driver = (error as { driverError?: { code?: unknown } }).driverError ?? error;
  const code = (driver as { code?: unknown })?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
