import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '@app/config';
import { parseDatabaseUrl } from '@app/persistence';

// No Docker engine runs here: this checks docker-compose.ha.yml against the configuration, the
// build, and the topology docs/HA.md describes.
const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const compose = parse(read('docker-compose.ha.yml'), { merge: true });
const services = compose.services as Record<string, any>;
const names = (prefix: RegExp) => Object.keys(services).filter((n) => prefix.test(n)).sort();
const source = (distPath: string) => join(root, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));

describe('docker-compose.ha.yml', () => {
  const etcd = names(/^etcd\d$/);
  const postgres = names(/^pg\d$/);
  const vaults = names(/^vault\d$/);

  it('runs three etcd members, two PostgreSQL nodes under Patroni, two vault instances, pki and a load balancer', () => {
    expect(etcd).toHaveLength(3);
    expect(postgres).toHaveLength(2);
    expect(vaults).toHaveLength(2);
    expect(Object.keys(services).sort()).toEqual([...etcd, 'lb', ...postgres, 'pki', ...vaults].sort());
    expect(new Set([...vaults, 'pki'].map((n) => services[n].image)).size).toBe(1);
  });

  it('etcd members form one cluster', () => {
    const initial = services.etcd1.environment.ETCD_INITIAL_CLUSTER;
    for (const name of etcd) {
      const env = services[name].environment;
      expect(env.ETCD_NAME).toBe(name);
      expect(env.ETCD_INITIAL_CLUSTER).toBe(initial);
      expect(initial).toContain(`${name}=${env.ETCD_INITIAL_ADVERTISE_PEER_URLS}`);
    }
  });

  it('every PostgreSQL node runs Patroni on the etcd members, with strict synchronous replication', () => {
    const patroni = parse(read('deploy/patroni/patroni.yml'));
    expect(patroni.bootstrap.dcs.synchronous_mode).toBe(true);
    expect(patroni.bootstrap.dcs.synchronous_mode_strict).toBe(true);
    expect(patroni.bootstrap.dcs.postgresql.parameters.synchronous_commit).toBe('on');
    expect(read('deploy/patroni/Dockerfile')).toMatch(/apt-get install .*patroni/);
    expect(existsSync(join(root, patroni.bootstrap.post_bootstrap.replace('/etc/patroni/', 'deploy/patroni/')))).toBe(true);
    for (const name of postgres) {
      const env = services[name].environment;
      expect(services[name].build).toBe('deploy/patroni');
      expect(env.PATRONI_NAME).toBe(name);
      expect(env.PATRONI_ETCD3_HOSTS.split(',').sort()).toEqual(etcd.map((e) => `${e}:2379`));
      expect(env.PATRONI_POSTGRESQL_CONNECT_ADDRESS).toBe(`${name}:5432`);
      expect(services[name].volumes).toContain(`${name}data:/var/lib/postgresql/data`);
    }
  });

  it('every instance lists both nodes in DATABASE_URL, read-write, with the login the bootstrap makes', () => {
    const postBootstrap = read('deploy/patroni/post-bootstrap.sh');
    for (const name of [...vaults, 'pki']) {
      const env = services[name].environment as Record<string, string>;
      const config = loadConfig(env);
      expect(config.dataDir).toBe('/data');
      const target = parseDatabaseUrl(config.databaseUrl!);
      expect(target.targetSessionAttrs).toBe('read-write');
      expect(target.hosts.map((h) => `${h.host}:${h.port}`)).toEqual(postgres.map((p) => `${p}:5432`));
      const url = new URL(target.hosts[0].url);
      expect(url.username).toBe('vault');
      expect(url.password).toBe(services.pg1.environment.VAULT_DB_PASSWORD);
      expect(postBootstrap).toContain(`CREATE DATABASE ${url.pathname.slice(1)} OWNER ${url.username}`);
      expect(services[name].volumes).toContain('vaultdata:/data');
      for (const pg of postgres) expect(services[name].depends_on[pg].condition).toBe('service_healthy');
      expect(existsSync(source(services[name].command[1]))).toBe(true);
    }
  });

  it('the load balancer sends to every vault instance, checking /health', () => {
    const haproxy = read('deploy/haproxy.cfg');
    expect(services.lb.volumes[0]).toMatch(/^\.\/deploy\/haproxy\.cfg:/);
    expect(haproxy).toMatch(/option httpchk GET \/health/);
    for (const name of vaults) {
      expect(haproxy).toMatch(new RegExp(`server ${name} ${name}:${services[name].environment.VAULT_PORT} check`));
      expect(services[name].ports).toBeUndefined();
    }
    expect(services.lb.ports).toContain('7272:7272');
  });
});
