import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/*
 * Issue 33: every write of what decides where a stored password goes, and every login with a
 * stored password, has its decision. This reads the sources: a new file that writes a
 * destination column or logs in with a connector, without the decision listed here, fails.
 */
const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

const files = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

/** The columns of the one destination definition (libs/gate/src/destination-binding.ts), and account names. */
const DESTINATION_WRITE = /UPDATE resources SET[^`]*\b(dns_name|remote_port|remote_tls|remote_ca_cert|remote_database|remote_user_dn|remote_account_id|type)\s*=|UPDATE accounts SET name\s*=|INSERT INTO accounts\b/;

/** Each writer, and the decision it must make (a call in the same file). */
const WRITERS: Record<string, RegExp> = {
  'apps/vault/src/resources/resource-writer.ts': /authorizeDestinationChange\(/, // EDIT RESOURCE; a new resource is not managed yet
  'apps/vault/src/remote-reset/remote-configuration.ts': /approveUse\([\s\S]*bindDestinations\(/,
  'apps/vault/src/accounts/accounts.service.ts': /authorizeRedirect\([\s\S]*bindDestinations\(/,
};

/** A connector login sends a stored password: the file checks the binding (or asks the gate, which does). */
const LOGIN = /connector\.(verify|connect)\(/;
const LOGIN_DECISION = /requireBound(Destination)?\(|openAdministrator\(|openPassword\(/;
const LOGIN_EXEMPT: Record<string, string> = {
  'libs/connectors/src/mysql.connector.ts': 'the connector itself',
};

describe('destinations change and passwords leave only through a decision', () => {
  it('every file that writes a destination column or an account name is listed with its decision, and makes it', () => {
    const writers = files.filter((f) => DESTINATION_WRITE.test(f.text)).map((f) => f.path).sort();
    expect(writers).toEqual(Object.keys(WRITERS).sort());
    for (const [path, decision] of Object.entries(WRITERS)) expect({ path, decides: decision.test(files.find((f) => f.path === path)!.text) }).toEqual({ path, decides: true });
  });

  it('every connector login checks the binding or goes through the gate', () => {
    const unchecked = files.filter((f) => LOGIN.test(f.text) && !LOGIN_DECISION.test(f.text) && !LOGIN_EXEMPT[f.path]).map((f) => f.path);
    expect(unchecked).toEqual([]);
  });
});
