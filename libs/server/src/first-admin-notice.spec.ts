import { FirstAdminPlace, firstAdminSentence, printFirstAdmin } from './first-admin-notice';

const TOKEN = 'a'.repeat(64);
const PASSWORD = 'b'.repeat(20);
const place = { dataDir: '/var/lib/vault', vaultUrl: 'https://localhost:7443', caFile: '/var/lib/vault/tls/service-ca.crt' };

function capture(isTTY: boolean | undefined, where: FirstAdminPlace = place): string {
  let text = '';
  printFirstAdmin({ token: TOKEN, password: PASSWORD }, where, { isTTY, write: (chunk: string) => (text += chunk) });
  return text;
}

describe('first administrator notice', () => {
  it('prints the token to a terminal, with the file that also holds it, the port in use and the CA to verify with', () => {
    const text = capture(true);
    expect(text).toContain(`  ${TOKEN}\n`);
    expect(text).toContain('/var/lib/vault/initial-admin-token');
    expect(text).toContain('  export CURL_CA_BUNDLE=/var/lib/vault/tls/service-ca.crt\n');
    expect(text).toContain(`curl -H "AUTHTOKEN: ${TOKEN}" https://localhost:7443/restapi/json/v1/resources`);
    expect(text).not.toContain('-k');
  });

  it('prints the console login password of admin to a terminal, with its file and where to sign in', () => {
    const text = capture(true);
    expect(text).toContain(`  ${PASSWORD}\n`);
    expect(text).toContain('/var/lib/vault/initial-admin-password');
    expect(text).toContain('People sign in at https://localhost:7443/ : user admin');
  });

  it('without TLS of its own (behind a proxy) the example is plain http and names no CA', () => {
    const text = capture(true, { dataDir: '/d', vaultUrl: 'http://localhost:7272' });
    expect(text).toContain('curl -H "AUTHTOKEN: ');
    expect(text).toContain('http://localhost:7272/restapi');
    expect(text).not.toContain('CURL_CA_BUNDLE');
  });

  it('never prints the token when standard output is a pipe or a file; it names the 0600 file and the CA instead', () => {
    for (const isTTY of [false, undefined]) {
      const text = capture(isTTY);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(PASSWORD);
      expect(text).toContain('/var/lib/vault/initial-admin-token (mode 0600)');
      expect(text).toContain('CURL_CA_BUNDLE=/var/lib/vault/tls/service-ca.crt');
    }
    expect(firstAdminSentence(place)).toBe(
      'First start: created the administrator "admin"; its API token is in /var/lib/vault/initial-admin-token (mode 0600), its console login password in /var/lib/vault/initial-admin-password; clients verify the services with the CA in /var/lib/vault/tls/service-ca.crt (CURL_CA_BUNDLE=/var/lib/vault/tls/service-ca.crt)',
    );
  });
});
