import { printFirstAdmin } from './first-admin-notice';

const TOKEN = 'a'.repeat(64);

function capture(isTTY: boolean | undefined): string {
  let text = '';
  printFirstAdmin(TOKEN, '/var/lib/vault', { isTTY, write: (chunk: string) => (text += chunk) });
  return text;
}

describe('first administrator notice', () => {
  it('prints the token to a terminal, with the file that also holds it', () => {
    const text = capture(true);
    expect(text).toContain(`  ${TOKEN}\n`);
    expect(text).toContain('/var/lib/vault/initial-admin-token');
  });

  it('never prints the token when standard output is a pipe or a file; it names the 0600 file instead', () => {
    for (const isTTY of [false, undefined]) {
      const text = capture(isTTY);
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('/var/lib/vault/initial-admin-token (mode 0600)');
    }
  });
});
