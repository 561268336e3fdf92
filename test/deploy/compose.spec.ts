import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '@app/config';

// No Docker engine runs here: this checks that the compose file and the Dockerfile agree
// with the configuration table (docs/configuration.md) and with what the build produces.
const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'));
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const configurationDoc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');

/** What `docker compose` makes of `${VAR:?message}`: the value the operator must give. */
const interpolated = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{PUBLIC_URL:\?[^}]*\}/, 'https://pki.example.test:6565')]));

const source = (distPath: string) => join(root, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));

describe('docker-compose.yml and Dockerfile', () => {
  it('runs PostgreSQL plus the two services from one image', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['pki', 'postgres', 'vault']);
    expect(compose.services.vault.image).toBe(compose.services.pki.image);
    expect(compose.services.postgres.image).toMatch(/^postgres:/);
  });

  it.each([
    ['vault', 'VAULT_PORT', 7272],
    ['pki', 'PKI_PORT', 6565],
  ])('%s: command exists in the build, port agrees with %s (default %i)', (name, variable, port) => {
    const service = compose.services[name];
    const [node, entry] = service.command;
    expect(node).toBe('node');
    expect(existsSync(source(entry))).toBe(true);
    expect(Number(service.environment[variable])).toBe(port);
    expect(service.ports).toContain(`${port}:${port}`);
    expect(dockerfile).toContain(`EXPOSE 7272 6565`);
  });

  it('every variable set is valid configuration and documented in docs/configuration.md', () => {
    for (const name of ['vault', 'pki']) {
      const env = interpolated(compose.services[name].environment as Record<string, string>);
      const config = loadConfig(env);
      for (const variable of Object.keys(env)) expect(configurationDoc).toContain(`| \`${variable}\``);
      expect(config.dataDir).toBe('/data');
      expect(compose.services[name].volumes).toContain('vaultdata:/data');
    }
  });

  it('restarts every service whose process ends (issue 32: the supervisor is the last line)', () => {
    for (const name of ['postgres', 'vault', 'pki']) expect(compose.services[name].restart).toBe('unless-stopped');
  });

  it('DATABASE_URL points at the compose PostgreSQL with its credentials', () => {
    const pg = compose.services.postgres.environment;
    for (const name of ['vault', 'pki']) {
      const url = new URL(compose.services[name].environment.DATABASE_URL);
      expect(url.hostname).toBe('postgres');
      expect(decodeURIComponent(url.username)).toBe(pg.POSTGRES_USER);
      expect(decodeURIComponent(url.password)).toBe(pg.POSTGRES_PASSWORD);
      expect(url.pathname).toBe(`/${pg.POSTGRES_DB}`);
      expect(compose.services[name].depends_on.postgres.condition).toBe('service_healthy');
    }
    expect(compose.volumes).toHaveProperty('pgdata');
    expect(compose.services.postgres.volumes).toContain('pgdata:/var/lib/postgresql/data');
  });

  it('PUBLIC_URL must be given: issued certificates carry CRL, OCSP and issuer URLs reachable from outside', () => {
    for (const name of ['vault', 'pki']) expect(compose.services[name].environment.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:\?.+\}$/);
  });

  it('both services have health checks that exist in the image, and pki waits for a healthy vault', () => {
    for (const name of ['vault', 'pki']) {
      const test = compose.services[name].healthcheck.test as string[];
      expect(test).toEqual(['CMD', 'node', 'scripts/healthcheck.js', name]);
      expect(existsSync(join(root, test[2]))).toBe(true);
      expect(dockerfile).toMatch(/^COPY .*scripts\/healthcheck\.js.* scripts\//m);
    }
    expect(compose.services.pki.depends_on.vault.condition).toBe('service_healthy');
  });

  it('the image runs every admin command: `admin` on the PATH and `npm run admin`', () => {
    expect(dockerfile).toMatch(/^COPY .*scripts\/ensure-built\.js.* scripts\//m);
    expect(dockerfile).toContain(`exec node /app/dist/scripts/admin.js "$@"`);
    expect(dockerfile).toContain('/usr/local/bin/admin');
    expect(existsSync(source('dist/scripts/admin.js'))).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.admin).toBe('node scripts/ensure-built.js && node dist/scripts/admin.js');
  });

  it('the image runs the Node major that package.json engines names, and its default command starts both services', () => {
    const engines = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node as string;
    const major = /(\d+)/.exec(engines)![1];
    for (const from of dockerfile.match(/^FROM node:\S+/gm)!) expect(from).toMatch(new RegExp(`^FROM node:${major}-`));
    const cmd = JSON.parse(/^CMD (.*)$/m.exec(dockerfile)![1]);
    expect(existsSync(source(cmd[1]))).toBe(true);
    expect(dockerfile).toMatch(/ENV .*DATA_DIR=\/data/);
    // Containers log one JSON object per line (one per request), for the log shippers.
    expect(dockerfile).toMatch(/ENV .*LOG_FORMAT=json/);
    // A container is reached through its published ports: it listens on every address even
    // when it runs the embedded database (which alone would mean loopback).
    expect(dockerfile).toMatch(/ENV .*BIND_ADDRESS=0\.0\.0\.0/);
  });
});
