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
      const env = compose.services[name].environment as Record<string, string>;
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

  it('the image runs on Node 22 and its default command starts both services', () => {
    expect(dockerfile).toMatch(/^FROM node:22/m);
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
