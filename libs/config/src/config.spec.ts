import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ vaultPort: 7272, pkiPort: 6565, tlsMode: 'self-signed', logLevel: 'log' });
    expect(config.dataDir.endsWith('/data')).toBe(true);
    expect(config.maxFileSize).toBe(10 * 1024 * 1024);
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
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
