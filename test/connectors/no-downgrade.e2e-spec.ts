import { ConnectorError, ConnectorTarget, connectorForType } from '@app/connectors';
import { startRecordingPostgres } from '../support/recording-postgres';
import { startConnectionSink } from '../support/connection-sink';
import { startRecordingMysql } from '../support/recording-mysql';

/*
 * Issue 33: a peer chooses how it asks for the password; the connector decides whether to
 * answer. Without TLS verify, PostgreSQL's clear-text and MD5 requests are refused before
 * anything is sent (the recording peer proves it), a trust login proves nothing, and LDAP
 * never binds without checked TLS.
 */
const postgresqlConnector = connectorForType('PostgreSQL')!;
const ldapConnector = connectorForType('LDAP Server')!;
const mysqlConnector = connectorForType('MySQL Server')!;

describe('connectors never follow a peer into a weaker authentication', () => {
  const target = (port: number, tls: ConnectorTarget['tls']): ConnectorTarget => ({ host: '127.0.0.1', port, orgId: 0, tls, database: 'postgres' });

  it.each(['cleartext', 'md5'] as const)('PostgreSQL asking for the password %s without TLS verify: refused, the peer receives nothing', async (auth) => {
    const peer = await startRecordingPostgres(auth);
    try {
      for (const run of [() => postgresqlConnector.verify(target(peer.port, 'off'), 'dba', 'Dba-Secret-Pass-1'), () => postgresqlConnector.connect(target(peer.port, 'off'), { username: 'vaultadmin', password: 'Admin-Secret-1' })]) {
        const error = await run().then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(ConnectorError);
        expect((error as ConnectorError).reason).toBe('tls');
        expect((error as ConnectorError).message).toMatch(/asked for the password of \w+ (in clear text|as an MD5 hash); it is sent only with SCRAM, or over TLS verify/);
      }
      expect(peer.users).toEqual(['dba', 'vaultadmin']);
      expect(peer.passwords).toEqual([]);
    } finally {
      await peer.close();
    }
  });

  it('PostgreSQL letting the role in without asking (trust): verify cannot tell, never "in sync"', async () => {
    const peer = await startRecordingPostgres('trust');
    try {
      const error = await postgresqlConnector.verify(target(peer.port, 'off'), 'dba', 'Dba-Secret-Pass-1').then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).message).toMatch(/without asking for a password \(trust\); the stored password cannot be verified/);
      expect(peer.passwords).toEqual([]);
    } finally {
      await peer.close();
    }
  });

  it.each(['off', 'require'] as const)('LDAP with TLS %s: refused before connecting', async (tls) => {
    const sink = await startConnectionSink();
    try {
      const ldap = { ...target(sink.port, tls), userDn: 'uid={account},ou=people,dc=example,dc=org' };
      const error = await ldapConnector.verify(ldap, 'alice', 'Alice-Pass-1').then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).reason).toBe('invalid');
      expect(sink.connections()).toBe(0);
    } finally {
      await sink.close();
    }
  });

  it.each(['mysql_clear_password', 'sha256_password'] as const)('MySQL switching to %s without TLS verify: refused, the peer receives nothing after the switch', async (plugin) => {
    const peer = await startRecordingMysql(plugin);
    try {
      const error = await mysqlConnector.verify({ host: '127.0.0.1', port: peer.port, orgId: 0, tls: 'off' }, 'dba', 'Dba-Secret-Pass-1').then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).message).toBe(`127.0.0.1:${peer.port} asked for the password of dba in clear text (${plugin}); it is sent so only over TLS verify`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(Buffer.concat(peer.afterSwitch).toString('latin1')).not.toContain('Dba-Secret-Pass-1');
      expect(peer.afterSwitch.filter((b) => b.length > 4 && b[4] !== 0x01)).toEqual([]);
    } finally {
      await peer.close();
    }
  });
});
