import { resolve } from 'node:path';

export type TlsMode = 'self-signed' | 'files' | 'off';
export type LogLevel = 'error' | 'warn' | 'log' | 'debug' | 'verbose';
export type LogFormat = 'text' | 'json';

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
  /** The vault as people reach it, for links in mail (CONSOLE_URL). */
  consoleUrl?: string;
  /** Ports the ACME validator connects to for http-01 (80) and tls-alpn-01 (443); other values are for tests. */
  acmeHttp01Port: number;
  acmeTlsAlpn01Port: number;
  /** Folder scanned for unmanaged JKS / PKCS#12 files. */
  unmanagedCertPath?: string;
  /** How often the background sweeper looks for expired check-outs and requests, ms. */
  sweepIntervalMs: number;
  /** How often each account under remote password reset is verified against its target, ms (once per account across instances; 0: never). */
  verifyIntervalMs: number;
  /** RSA-2048 keys each service keeps generated ahead for SSH key creation (0: generate on demand). */
  sshKeyPoolSize: number;
  /** Size of the database connection pool per service. */
  dbPoolSize: number;
  /** Longest wait for a database connection (a free pool slot or a new connection), ms. */
  dbConnectTimeoutMs: number;
  /** Longest a single SQL statement may run before PostgreSQL cancels it, ms (0: no limit). */
  dbStatementTimeoutMs: number;
  /** text: Nest's lines; json: one JSON object per line, with one line per request. */
  logFormat: LogFormat;
  /** GET /metrics without a token (otherwise the metrics.read permission). */
  metricsPublic: boolean;
  /** On SIGTERM, how long the instance keeps accepting while /health answers 503, ms. */
  shutdownDelayMs: number;
  /** Then, how long in-flight requests and running jobs may take to finish before the process exits, ms. */
  shutdownGraceMs: number;
  /** Who signs OCSP responses: each CA's delegated responder certificate, or the CA itself. */
  ocspSigner: 'delegated' | 'ca';
  /** Certificate expiry notices: thresholds, SMTP relay, optional webhook. */
  expiry: ExpiryNoticeConfig;
  /** Scheduled password rotation and its webhook. */
  rotation: RotationConfig;
  backup: BackupConfig;
  console: ConsoleConfig;
}

/** The web console's sessions (docs/console.md). */
export interface ConsoleConfig {
  idleMinutes: number;
  sessionHours: number;
}

/** Scheduled backups (docs/operations.md, "Backup and restore"): off without BACKUP_DIR. */
export interface BackupConfig {
  dir?: string;
  intervalSeconds: number;
  keep: number;
}

export interface RotationConfig {
  /** How often each instance looks for due schedules and runs, ms. */
  tickMs: number;
  /** Accounts one instance rotates at once (each holds two database connections meanwhile). */
  concurrency: number;
  /** Receives one signed JSON event per rotation, never a password. */
  webhookUrl?: string;
  /** HMAC-SHA256 key of the webhook's signature header; required with the URL. */
  webhookSecret?: string;
}

export interface ExpiryNoticeConfig {
  /** Days before expiry at which a notice goes out, largest first. */
  thresholdsDays: number[];
  /** How often the notifier looks for due notices, ms. */
  intervalMs: number;
  smtp?: SmtpConfig;
  webhookUrl?: string;
}

export interface SmtpConfig {
  host: string;
  port: number;
  /** starttls: upgrade with STARTTLS and refuse without it; implicit: TLS from the first byte (465); off: plain. */
  tls: 'starttls' | 'implicit' | 'off';
  user?: string;
  password?: string;
  from: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): AppConfig {
  const tlsMode = oneOf(env, 'TLS_MODE', ['self-signed', 'files', 'off'], 'self-signed') as TlsMode;
  const database = databaseUrl(env);
  const config: AppConfig = {
    databaseUrl: database,
    dataDir: resolve(text(env, 'DATA_DIR') ?? './data'),
    vaultPort: port(env, 'VAULT_PORT', 7272),
    pkiPort: port(env, 'PKI_PORT', 6565),
    // The embedded database means a trial on one machine: nothing listens beyond it unless asked.
    bindAddress: text(env, 'BIND_ADDRESS') ?? (database ? '0.0.0.0' : '127.0.0.1'),
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
    consoleUrl: url(env, 'CONSOLE_URL'),
    acmeHttp01Port: port(env, 'ACME_HTTP01_PORT', 80),
    acmeTlsAlpn01Port: port(env, 'ACME_TLSALPN01_PORT', 443),
    unmanagedCertPath: text(env, 'UNMANAGED_CERT_PATH'),
    sweepIntervalMs: integer(env, 'SWEEP_INTERVAL_MS', 5000, 100, 3_600_000),
    verifyIntervalMs: integer(env, 'VERIFY_INTERVAL_MS', 86_400_000, 0, 366 * 86_400_000),
    sshKeyPoolSize: integer(env, 'SSH_KEY_POOL_SIZE', 4, 0, 64),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 20, 1, 500),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 60_000, 0, 3_600_000),
    logFormat: oneOf(env, 'LOG_FORMAT', ['text', 'json'], 'text') as LogFormat,
    metricsPublic: oneOf(env, 'METRICS_PUBLIC', ['true', 'false'], 'false') === 'true',
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 8000, 0, 600_000),
    ocspSigner: oneOf(env, 'OCSP_SIGNER', ['delegated', 'ca'], 'delegated') as 'delegated' | 'ca',
    expiry: expiryConfig(env),
    rotation: rotationConfig(env),
    backup: {
      dir: text(env, 'BACKUP_DIR') === undefined ? undefined : resolve(text(env, 'BACKUP_DIR')!),
      intervalSeconds: integer(env, 'BACKUP_INTERVAL_SECONDS', 86_400, 1, 366 * 86_400),
      keep: integer(env, 'BACKUP_KEEP', 7, 1, 10_000),
    },
    console: {
      idleMinutes: integer(env, 'CONSOLE_IDLE_MINUTES', 15, 1, 24 * 60),
      sessionHours: integer(env, 'CONSOLE_SESSION_HOURS', 8, 1, 24 * 7),
    },
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

function expiryConfig(env: Env): ExpiryNoticeConfig {
  const days = text(env, 'EXPIRY_NOTICE_DAYS') ?? '30,7,1';
  const thresholdsDays = days.split(',').map((d) => d.trim());
  if (!thresholdsDays.every((d) => /^\d+$/.test(d) && Number(d) >= 1 && Number(d) <= 3650)) {
    throw new ConfigError(`EXPIRY_NOTICE_DAYS must be a comma-separated list of whole days from 1 to 3650, got "${days}"`);
  }
  const host = text(env, 'SMTP_HOST');
  const tls = oneOf(env, 'SMTP_TLS', ['starttls', 'implicit', 'off'], 'starttls') as SmtpConfig['tls'];
  const from = text(env, 'SMTP_FROM');
  if (host && !from) throw new ConfigError('SMTP_HOST needs SMTP_FROM (the sender address of expiry notices)');
  if (text(env, 'SMTP_PASSWORD') && !text(env, 'SMTP_USER')) throw new ConfigError('SMTP_PASSWORD needs SMTP_USER');
  return {
    thresholdsDays: [...new Set(thresholdsDays.map(Number))].sort((a, b) => b - a),
    intervalMs: integer(env, 'EXPIRY_CHECK_INTERVAL_MS', 3_600_000, 100, 86_400_000),
    smtp: host
      ? { host, port: port(env, 'SMTP_PORT', tls === 'implicit' ? 465 : 587), tls, user: text(env, 'SMTP_USER'), password: env.SMTP_PASSWORD || undefined, from: from! }
      : undefined,
    webhookUrl: url(env, 'EXPIRY_WEBHOOK_URL'),
  };
}

function rotationConfig(env: Env): RotationConfig {
  const webhookUrl = url(env, 'ROTATION_WEBHOOK_URL');
  const webhookSecret = env.ROTATION_WEBHOOK_SECRET || undefined;
  if (webhookUrl && (!webhookSecret || webhookSecret.length < 16)) {
    throw new ConfigError('ROTATION_WEBHOOK_URL needs ROTATION_WEBHOOK_SECRET (at least 16 characters: the receiver checks the signature with it)');
  }
  return {
    tickMs: integer(env, 'ROTATION_TICK_MS', 5000, 100, 3_600_000),
    concurrency: integer(env, 'ROTATION_CONCURRENCY', 2, 1, 64),
    webhookUrl,
    webhookSecret,
  };
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
