import { isIP } from 'node:net';
import { COMMON_SUITES } from '../cipher-suites';
import { ConnectionFailure } from '../errors';
import { RawTarget } from '../raw-connection';
import { ContentType, encodeRecord, Version } from '../tls-wire';
import { exchangeHello } from './hello-exchange';

// heartbeat_request (1) declaring a 16 KiB payload while sending none: a patched server
// drops it (RFC 6520 §4), a vulnerable one echoes 16 KiB of its memory.
const MALFORMED_HEARTBEAT = Buffer.from([0x01, 0x40, 0x00]);

/**
 * The classic probe: the heartbeat goes out in the clear right after ServerHelloDone,
 * before any key exchange, which vulnerable OpenSSL 1.0.1 builds still process.
 */
export async function probeHeartbleed(target: RawTarget): Promise<boolean> {
  const outcome = await exchangeHello(
    target,
    {
      recordVersion: Version.TLS10,
      clientVersion: Version.TLS12,
      suites: COMMON_SUITES,
      serverName: isIP(target.host) ? undefined : target.host,
      heartbeat: true,
    },
    true,
  );
  if (outcome.kind === 'rejected') return false;
  const { connection, serverHello } = outcome;
  try {
    connection.send(encodeRecord(ContentType.Heartbeat, serverHello.version, MALFORMED_HEARTBEAT));
    for (;;) {
      const record = await connection.next();
      if (!record || record.type === ContentType.Alert) return false;
      if (record.type === ContentType.Heartbeat) return record.fragment.length > MALFORMED_HEARTBEAT.length;
    }
  } catch (error) {
    // Silence until the deadline is what a patched server that ignores the request looks like.
    if (error instanceof ConnectionFailure && (error.kind === 'timeout' || error.kind === 'closed')) return false;
    throw error;
  } finally {
    connection.close();
  }
}
