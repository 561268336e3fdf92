import { isCbcSuite, SSLV3_SUITES } from '../cipher-suites';
import { RawTarget } from '../raw-connection';
import { Version } from '../tls-wire';
import { exchangeHello } from './hello-exchange';

export interface Sslv3Result {
  sslv3: boolean;
  /** POODLE needs SSLv3 plus a CBC suite the server is willing to choose. */
  poodle: boolean;
}

const SCSV_RENEGOTIATION = 0x00ff;

export async function probeSslv3(target: RawTarget): Promise<Sslv3Result> {
  const first = await sslv3Hello(target, SSLV3_SUITES);
  if (first === null) return { sslv3: false, poodle: false };
  if (isCbcSuite(first)) return { sslv3: true, poodle: true };
  // The server preferred a stream suite (RC4); ask again with CBC suites only.
  const second = await sslv3Hello(target, SSLV3_SUITES.filter(isCbcSuite));
  return { sslv3: true, poodle: second !== null && isCbcSuite(second) };
}

/** The suite chosen in an SSLv3 ServerHello, or null when the server will not speak SSLv3. */
async function sslv3Hello(target: RawTarget, suites: number[]): Promise<number | null> {
  const outcome = await exchangeHello(target, {
    recordVersion: Version.SSL3,
    clientVersion: Version.SSL3,
    suites: [...suites, SCSV_RENEGOTIATION],
    extensions: false,
  });
  if (outcome.kind === 'rejected') return null;
  outcome.connection.close();
  return outcome.serverHello.version === Version.SSL3 ? outcome.serverHello.cipherSuite : null;
}
