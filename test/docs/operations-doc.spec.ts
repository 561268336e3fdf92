import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../scripts/admin/commands';
import { MIGRATIONS } from '../../migrations';

const root = join(__dirname, '..', '..');
const operations = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return /\.(md|sh|ya?ml|py)$/.test(name) ? [path] : [];
  });
}

/** Issue 39: the operator's documents say what the code does. */
describe('docs/operations.md and the examples', () => {
  it('the admin command table is one table under its header and lists every command once', () => {
    const table = /\| Command \| What it does \|\n\|---\|---\|\n((?:\|.*\|\n)+)/.exec(operations);
    expect(table).not.toBeNull();
    const rows = table![1].trim().split('\n');
    expect(new Set(rows).size).toBe(rows.length);
    const listed = rows.flatMap((row) => [...row.split(' | ')[0].matchAll(/`([a-z][a-z-]+)(?: [^`]*)?`/g)].map((m) => m[1]));
    expect(COMMANDS.map((c) => c.name).filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('"What a start logs" names the number of migrations this version applies', () => {
    expect(operations).toContain(`[Start] Database schema: applied ${MIGRATIONS.length} migrations`);
  });

  it('docs/configuration.md documents every variable the configuration reads', () => {
    const source = readdirSync(join(root, 'libs', 'config', 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      .map((f) => readFileSync(join(root, 'libs', 'config', 'src', f), 'utf8')).join('\n');
    const names = new Set([...source.matchAll(/env, '([A-Z0-9_]+)'/g), ...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]));
    const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    expect([...names].filter((name) => !doc.includes(`| \`${name}\``))).toEqual([]);
    expect(names.size).toBeGreaterThan(40);
  });

  it('no document or example turns certificate verification off (curl -k, --insecure)', () => {
    const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs')), ...markdownFiles(join(root, 'examples')), ...markdownFiles(join(root, 'deploy'))];
    const offenders = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        // A curl command (not prose quoting one in backticks), its comment left out.
        .filter((line) => /(^|[\s|;&($])curl\s+(\S+\s+)*(-[a-zA-Z]*k[a-zA-Z]*|--insecure)(\s|$)/.test(line.split(' #')[0]))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
