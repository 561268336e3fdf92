import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

/**
 * Issue 39: `npm ci` warned EBADENGINE (ldapts 9 wants node 22 while package.json said 20). Every
 * installed package supports the oldest Node that `engines` allows, and this machine (which runs
 * CI) runs a Node that `engines` allows; the Dockerfile's major is checked in compose.spec.ts.
 */
describe('the Node runtime', () => {
  const oldest = semver.minVersion(pkg.engines.node)!.version;

  it('every package of the lockfile supports the oldest Node engines allows', () => {
    const unsupported = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>)
      .filter(([path, p]) => path && p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies(oldest, p.engines.node))
      .map(([path, p]) => `${path}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(unsupported).toEqual([]);
  });

  it('this machine runs a Node engines allows', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });
});
