import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@app/config';

const root = join(__dirname, '..', '..');
const text = readFileSync(join(root, 'deploy', 'credential-vault.service'), 'utf8');

/** `Key=value` lines of the unit, by section (systemd has no inline comments: none are allowed). */
function sections(unit: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let current = '';
  for (const line of unit.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) out[(current = header[1])] = {};
    else {
      const [key, ...rest] = line.split('=');
      out[current][key] = rest.join('=');
    }
  }
  return out;
}

/**
 * Issue 39: a supervisor's unit runs node itself (SIGTERM and SIGINT drain: test/server/
 * shutdown.e2e-spec.ts sends each to that entry point), restarts on failure, and is hardened.
 */
describe('deploy/credential-vault.service', () => {
  const unit = sections(text);

  it('runs node on the built entry point of both services, not npm', () => {
    const [node, entry] = unit.Service.ExecStart.split(' ');
    expect(node).toBe('/usr/bin/node');
    expect(entry).toBe('dist/apps/all/src/main.js');
    expect(existsSync(join(root, 'apps', 'all', 'src', 'main.ts'))).toBe(true);
  });

  it('signals node alone, waits longer than the drain, restarts on failure', () => {
    expect(unit.Service).toMatchObject({ KillSignal: 'SIGTERM', KillMode: 'mixed', Restart: 'on-failure' });
    const config = loadConfig({});
    expect(Number(unit.Service.TimeoutStopSec) * 1000).toBeGreaterThan(config.shutdownDelayMs + config.shutdownGraceMs);
  });

  it('is hardened: no new privileges, read-only system, private temp, no capabilities, its own 0700 state', () => {
    expect(unit.Service).toMatchObject({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      CapabilityBoundingSet: '',
      StateDirectoryMode: '0700',
      UMask: '0077',
      ReadWritePaths: unit.Service.Environment.match(/DATA_DIR=(\S+)/)![1],
    });
    expect(unit.Service.User).not.toBe('root');
  });

  it('has no inline comments (systemd would read them as part of the value)', () => {
    for (const line of text.split('\n').filter((l) => /^\w+=/.test(l))) expect(line).not.toMatch(/\s#/);
  });
});
