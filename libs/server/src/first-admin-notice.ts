import { join } from 'node:path';
import type { FirstAdmin } from './bootstrap-admin';

export interface NoticeOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** Where the first administrator reaches the vault, as this start serves it. */
export interface FirstAdminPlace {
  dataDir: string;
  /** The vault's URL as a client on this host uses it, e.g. https://localhost:7272. */
  vaultUrl: string;
  /** The CA file a client trusts to verify the services (TLS_MODE=self-signed), if any. */
  caFile?: string;
}

/** Where the first token is, and how to verify the services, in one sentence (JSON logs, pipes). */
export function firstAdminSentence(place: FirstAdminPlace): string {
  const file = join(place.dataDir, 'initial-admin-token');
  const ca = place.caFile ? `; clients verify the services with the CA in ${place.caFile} (CURL_CA_BUNDLE=${place.caFile})` : '';
  const password = join(place.dataDir, 'initial-admin-password');
  return `First start: created the administrator "admin"; its API token is in ${file} (mode 0600), its console login password in ${password}${ca}`;
}

/**
 * At first start, tells the operator where the administrator's token and login password are. The token itself
 * is printed only to a terminal: when standard output is a pipe or a file (a container's
 * log, a journal), those logs outlive the token's secrecy, so only the 0600 file holds it.
 * The example names the port in use and verifies the server (never `curl -k`).
 */
export function printFirstAdmin({ token, password }: FirstAdmin, place: FirstAdminPlace, out: NoticeOutput = process.stdout): void {
  const file = join(place.dataDir, 'initial-admin-token');
  if (!out.isTTY) {
    out.write(`\n${firstAdminSentence(place)}. The token is not printed because standard output is not a terminal.\n`);
    return;
  }
  out.write(
    [
      '',
      'First start: created the administrator "admin".',
      `Its API token (shown once, also in ${file}, mode 0600):`,
      `  ${token}`,
      'Use it as the AUTHTOKEN header, e.g.:',
      ...(place.caFile ? [`  export CURL_CA_BUNDLE=${place.caFile}`] : []),
      `  curl -H "AUTHTOKEN: ${token}" ${place.vaultUrl}/restapi/json/v1/resources`,
      `People sign in at ${place.vaultUrl}/ : user admin, login password (shown once, also in`,
      `${join(place.dataDir, 'initial-admin-password')}; a TOTP second factor is set up at the first sign-in):`,
      `  ${password}`,
      '',
    ].join('\n'),
  );
}
