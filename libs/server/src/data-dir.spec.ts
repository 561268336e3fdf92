import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secureDataDir } from './data-dir';

describe('DATA_DIR is the service user’s alone', () => {
  const root = mkdtempSync(join(tmpdir(), 'data-dir-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const modeOf = (dir: string) => statSync(dir).mode & 0o777;

  it('makes a missing folder 0700, quietly', () => {
    const warnings: string[] = [];
    const dir = join(root, 'new', 'data');
    secureDataDir(dir, (w) => warnings.push(w));
    expect(modeOf(dir)).toBe(0o700);
    expect(warnings).toEqual([]);
  });

  it('tightens a folder open to others and says so', () => {
    const warnings: string[] = [];
    const dir = join(root, 'open');
    secureDataDir(dir, () => undefined);
    chmodSync(dir, 0o755);
    secureDataDir(dir, (w) => warnings.push(w));
    expect(modeOf(dir)).toBe(0o700);
    expect(warnings).toEqual([`DATA_DIR ${dir} had mode 755, open to other users; it is 0700 now`]);
  });
});
