import { CONNECTORS, Connector, ConnectorError, ConnectorKind } from '@app/connectors';
import { useHostKeyPins } from '@app/ssh';
import { ConnectorPeer, PEER_KINDS, startPeer } from '../support/connector-peers';

const P1 = 'First-Pass-word-1';
const P2 = 'Second-Pass-word-2';

async function failure(work: Promise<unknown>): Promise<ConnectorError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ConnectorError)) throw new Error(`expected a ConnectorError, got ${String(error)}`);
  return error;
}

/**
 * The one harness every connector passes (as HashiCorp Vault's dbplugin test harness):
 * against its real peer, log in as the administrator, change a password, verify by
 * logging in, and fail each way the same: wrong administrator password, unreachable host,
 * untrusted certificate, missing account, hostile names.
 */
describe.each(PEER_KINDS)('connector contract: %s', (kind: ConnectorKind) => {
  let peer: ConnectorPeer;
  let connector: Connector;

  beforeAll(async () => {
    // SSH host keys: the vault pins them in its database; this harness has none, so it trusts every key.
    useHostKeyPins({ verify: async () => undefined });
    peer = await startPeer(kind);
    connector = CONNECTORS[kind];
  }, 180_000);
  afterAll(async () => {
    await peer?.stop();
  }, 60_000);

  it('logs in as the administrator and proves it may change passwords', async () => {
    const session = await connector.connect(peer.target, peer.admin);
    try {
      await session.checkPrivilege();
    } finally {
      await session.close();
    }
  });

  it('proves the right on an account without changing it: a reader is refused as permission_denied, a writer accepted', async () => {
    const name = await peer.createAccount(P1);
    const check = async (admin: { username: string; password: string }) => {
      const session = await connector.connect(peer.target, admin);
      try {
        await session.checkPrivilege();
      } finally {
        await session.close();
      }
    };
    const refused = await failure(check(peer.lesserAdmins.reader));
    expect(refused.reason).toBe('permission_denied');
    expect(refused.message).toContain(peer.refusalOf(peer.lesserAdmins.reader.username));
    await check(peer.lesserAdmins.writer);
    await check(peer.admin);
    expect(await peer.login(name, P1)).toBe(true);
  });

  it('changes one password: the new one logs in, the old one does not, and verify says so', async () => {
    const name = await peer.createAccount(P1);
    expect(await connector.verify(peer.target, name, P1)).toBe(true);
    const session = await connector.connect(peer.target, peer.admin);
    try {
      await session.changePassword(name, P2);
    } finally {
      await session.close();
    }
    expect(await peer.login(name, P2)).toBe(true);
    expect(await peer.login(name, P1)).toBe(false);
    expect(await connector.verify(peer.target, name, P2)).toBe(true);
    expect(await connector.verify(peer.target, name, P1)).toBe(false);
  });

  it('refuses a wrong administrator password as auth_failed', async () => {
    const error = await failure(
      (async () => {
        const session = await connector.connect(peer.target, { ...peer.admin, password: 'Wrong-Pass-word-9' });
        await session.checkPrivilege();
      })(),
    );
    expect(error.reason).toBe('auth_failed');
    expect(error.message).not.toContain('Wrong-Pass-word-9');
  });

  it('names an unreachable host as unreachable', async () => {
    const error = await failure(connector.verify({ ...peer.target, port: 1 }, 'nobody', P1));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toBe(`Cannot reach ${peer.target.host}:1: connection refused`);
  });

  it('says not_found for an account missing on the target', async () => {
    const session = await connector.connect(peer.target, peer.admin);
    try {
      const error = await failure(session.changePassword(kind === 'ssh' ? 'vtnosuchuser' : 'vt_no_such_user', P2));
      expect(error.reason).toBe('not_found');
    } finally {
      await session.close();
    }
  });

  it('with TLS verify, refuses a certificate it cannot trust before logging in, and accepts it under CACERT', async () => {
    if (!peer.untrusted || !peer.trusted) return expect(connector.tlsModes).toEqual(['off']);
    const error = await failure(connector.connect(peer.untrusted.target, peer.admin));
    expect(error.reason).toBe('tls');
    const session = await connector.connect(peer.trusted.target, peer.admin);
    await session.close();
  });

  it('passes hostile account names as one identifier: only that account changes', async () => {
    if (peer.hostileNames.length === 0) {
      // SSH: names outside the portable user-name set are refused before connecting.
      const session = await connector.connect(peer.target, peer.admin);
      const error = await failure(session.changePassword('x; rm -rf /', P2));
      expect(error.reason).toBe('invalid');
      return;
    }
    for (const hostile of peer.hostileNames) {
      const name = await peer.createAccount(P1, hostile);
      const session = await connector.connect(peer.target, peer.admin);
      try {
        await session.changePassword(name, P2);
      } finally {
        await session.close();
      }
      expect(await peer.login(name, P2)).toBe(true);
      expect(await connector.verify(peer.target, name, P2)).toBe(true);
      expect(await peer.adminIntact()).toBe(true);
    }
  });
});
