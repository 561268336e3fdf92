import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ vaultPort: 7272, pkiPort: 6565, tlsMode: 'self-signed', logLevel: 'log' });
    expect(config.dataDir.endsWith('/data')).toBe(true);
    expect(config.maxFileSize).toBe(10 * 1024 * 1024);
    expect(config.ocspSigner).toBe('delegated');
    expect(config.expiry).toEqual({ thresholdsDays: [30, 7, 1], intervalMs: 3_600_000, smtp: undefined, webhookUrl: undefined });
  });

  it('listens on loopback with the embedded database (a trial), everywhere with DATABASE_URL, as BIND_ADDRESS says when set', () => {
    expect(loadConfig({}).bindAddress).toBe('127.0.0.1');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/x' }).bindAddress).toBe('0.0.0.0');
    expect(loadConfig({ BIND_ADDRESS: '0.0.0.0' }).bindAddress).toBe('0.0.0.0');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/x', BIND_ADDRESS: '127.0.0.2' }).bindAddress).toBe('127.0.0.2');
  });

  it('reads the SMTP relay and the notice thresholds', () => {
    const config = loadConfig({ SMTP_HOST: 'mail.example.com', SMTP_FROM: 'pki@example.com', SMTP_USER: 'u', SMTP_PASSWORD: 'p w', EXPIRY_NOTICE_DAYS: '7, 60,7' });
    expect(config.expiry.thresholdsDays).toEqual([60, 7]);
    expect(config.expiry.smtp).toEqual({ host: 'mail.example.com', port: 587, tls: 'starttls', user: 'u', password: 'p w', from: 'pki@example.com' });
    expect(loadConfig({ SMTP_HOST: 'h', SMTP_FROM: 'f@x', SMTP_TLS: 'implicit' }).expiry.smtp?.port).toBe(465);
  });

  it.each([
    [{ VAULT_PORT: 'abc' }, 'VAULT_PORT'],
    [{ PKI_PORT: '70000' }, 'PKI_PORT'],
    [{ TLS_MODE: 'maybe' }, 'TLS_MODE'],
    [{ TLS_MODE: 'files' }, 'TLS_CERT_FILE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ MASTER_KEY: 'short' }, 'MASTER_KEY'],
    [{ MASTER_KEY: 'a'.repeat(64), MASTER_KEY_FILE: '/k' }, 'MASTER_KEY'],
    [{ OCSP_SIGNER: 'me' }, 'OCSP_SIGNER'],
    [{ SMTP_HOST: 'mail.example.com' }, 'SMTP_FROM'],
    [{ SMTP_HOST: 'h', SMTP_FROM: 'f@x', SMTP_TLS: 'maybe' }, 'SMTP_TLS'],
    [{ SMTP_PASSWORD: 'secret' }, 'SMTP_USER'],
    [{ EXPIRY_NOTICE_DAYS: '30,soon' }, 'EXPIRY_NOTICE_DAYS'],
    [{ EXPIRY_WEBHOOK_URL: 'ftp://x' }, 'EXPIRY_WEBHOOK_URL'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
