import { resolve } from 'node:path';

export type TlsMode = 'self-signed' | 'files' | 'off';
export type LogLevel = 'error' | 'warn' | 'log' | 'debug' | 'verbose';

/** Everything the services read from the environment, validated once at boot. */
export interface AppConfig {
  databaseUrl?: string;
  dataDir: string;
  vaultPort: number;
  pkiPort: number;
  bindAddress: string;
  tlsMode: TlsMode;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  masterKey?: string;
  masterKeyFile?: string;
  logLevel: LogLevel;
  /** Largest accepted upload (files, key stores), bytes. */
  maxFileSize: number;
  /** Largest total of the files in one multipart request, bytes. */
  maxUploadTotal: number;
  /** Multipart requests received at once per service; more answer Failed without being read. */
  maxConcurrentUploads: number;
  /** Base URL put in issued certificates for CRLs; defaults to the pki service's own URL. */
  publicUrl?: string;
  /** Ports the ACME validator connects to for http-01 (80) and tls-alpn-01 (443); other values are for tests. */
  acmeHttp01Port: number;
  acmeTlsAlpn01Port: number;
  /** Folder scanned for unmanaged JKS / PKCS#12 files. */
  unmanagedCertPath?: string;
  /** How often the background sweeper looks for expired check-outs and requests, ms. */
  sweepIntervalMs: number;
  /** Size of the database connection pool per service. */
  dbPoolSize: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): AppConfig {
  const tlsMode = oneOf(env, 'TLS_MODE', ['self-signed', 'files', 'off'], 'self-signed') as TlsMode;
  const config: AppConfig = {
    databaseUrl: databaseUrl(env),
    dataDir: resolve(text(env, 'DATA_DIR') ?? './data'),
    vaultPort: port(env, 'VAULT_PORT', 7272),
    pkiPort: port(env, 'PKI_PORT', 6565),
    bindAddress: text(env, 'BIND_ADDRESS') ?? '0.0.0.0',
    tlsMode,
    tlsCertFile: text(env, 'TLS_CERT_FILE'),
    tlsKeyFile: text(env, 'TLS_KEY_FILE'),
    masterKey: text(env, 'MASTER_KEY'),
    masterKeyFile: text(env, 'MASTER_KEY_FILE'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['error', 'warn', 'log', 'debug', 'verbose'], 'log') as LogLevel,
    maxFileSize: integer(env, 'MAX_FILE_SIZE', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    maxUploadTotal: integer(env, 'MAX_UPLOAD_TOTAL', 32 * 1024 * 1024, 1, 10 * 1024 * 1024 * 1024),
    maxConcurrentUploads: integer(env, 'MAX_CONCURRENT_UPLOADS', 16, 1, 10_000),
    publicUrl: url(env, 'PUBLIC_URL'),
    acmeHttp01Port: port(env, 'ACME_HTTP01_PORT', 80),
    acmeTlsAlpn01Port: port(env, 'ACME_TLSALPN01_PORT', 443),
    unmanagedCertPath: text(env, 'UNMANAGED_CERT_PATH'),
    sweepIntervalMs: integer(env, 'SWEEP_INTERVAL_MS', 5000, 100, 3_600_000),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 20, 1, 500),
  };
  if (tlsMode === 'files' && (!config.tlsCertFile || !config.tlsKeyFile)) {
    throw new ConfigError('TLS_MODE=files needs TLS_CERT_FILE and TLS_KEY_FILE');
  }
  if (config.maxUploadTotal < config.maxFileSize) {
    throw new ConfigError('MAX_UPLOAD_TOTAL must be at least MAX_FILE_SIZE');
  }
  if (config.masterKey && config.masterKeyFile) {
    throw new ConfigError('Set MASTER_KEY or MASTER_KEY_FILE, not both');
  }
  if (config.masterKey && !isKeyMaterial(config.masterKey)) {
    throw new ConfigError('MASTER_KEY must be 32 bytes as 64 hex characters or base64');
  }
  return config;
}

export function isKeyMaterial(value: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(value) || Buffer.from(value, 'base64').length === 32;
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function databaseUrl(env: Env): string | undefined {
  const value = text(env, 'DATABASE_URL');
  if (value && !/^postgres(ql)?:\/\//.test(value)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL');
  }
  return value;
}

function url(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value && !/^https?:\/\/[^\s]+$/.test(value)) throw new ConfigError(`${name} must be an http(s) URL`);
  return value?.replace(/\/+$/, '');
}

function port(env: Env, name: string, fallback: number): number {
  return integer(env, name, fallback, 0, 65535);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function oneOf(env: Env, name: string, allowed: string[], fallback: string): string {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value;
}
