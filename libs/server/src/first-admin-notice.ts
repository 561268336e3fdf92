import { join } from 'node:path';

export interface NoticeOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * At first start, tells the operator where the administrator's token is. The token itself
 * is printed only to a terminal: when standard output is a pipe or a file (a container's
 * log, a journal), those logs outlive the token's secrecy, so only the 0600 file holds it.
 */
export function printFirstAdmin(token: string, dataDir: string, out: NoticeOutput = process.stdout): void {
  const file = join(dataDir, 'initial-admin-token');
  if (!out.isTTY) {
    out.write(`\nFirst start: created the administrator "admin". Its API token is in ${file} (mode 0600); it is not printed because standard output is not a terminal.\n`);
    return;
  }
  out.write(
    [
      '',
      'First start: created the administrator "admin".',
      `Its API token (shown once, also in ${file}, mode 0600):`,
      `  ${token}`,
      'Use it as the AUTHTOKEN header, e.g.:',
      `  curl -k -H "AUTHTOKEN: ${token}" https://localhost:7272/restapi/json/v1/resources`,
      '',
    ].join('\n'),
  );
}
