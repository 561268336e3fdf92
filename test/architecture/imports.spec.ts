import { circles, importGraph, resolveImport } from './import-graph';

/**
 * The layering rules of docs/architecture.md, as tests over the sources' imports: no file
 * reaches itself through its imports (a circle means two files each need the other; the cure is
 * to move what they share, a type or a constant, into a file both import), and an engine of
 * the certificate manager is entered only by its index.ts.
 */
describe('imports', () => {
  it('resolves the tsconfig aliases as the compiler does', () => {
    expect(resolveImport('apps/vault/src/main.ts', '@app/gate')).toBe('libs/gate/src/index.ts');
    expect(resolveImport('apps/vault/src/main.ts', '@app/pki/certs')).toBe('libs/pki/src/certs/index.ts');
    expect(resolveImport('apps/vault/src/main.ts', '@app/ssh')).toBe('libs/ssh/src/index.ts');
    expect(resolveImport('apps/vault/src/main.ts', '@app/ssh/service')).toBe('libs/ssh/src/service/index.ts');
    expect(resolveImport('libs/gate/src/account-gate.ts', './locator')).toBe('libs/gate/src/locator.ts');
    expect(resolveImport('libs/gate/src/account-gate.ts', 'typeorm')).toBeUndefined();
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import circle in apps/ and libs/', () => {
    expect(circles(importGraph())).toEqual([]);
  });

  it('keeps SSH below both the certificate manager and the connectors: neither libs/ssh nor libs/connectors imports libs/pki', () => {
    const wrong: string[] = [];
    for (const [from, targets] of importGraph()) {
      if (!/^libs\/(ssh|connectors)\//.test(from)) continue;
      for (const to of targets) if (to.startsWith('libs/pki/')) wrong.push(`${from} -> ${to}`);
    }
    expect(wrong).toEqual([]);
  });

  it('enters libs/ssh by @app/ssh or @app/ssh/service only, keeps its core below its services, and gives the connectors the core alone', () => {
    const entries = ['libs/ssh/src/index.ts', 'libs/ssh/src/service/index.ts'];
    const wrong: string[] = [];
    for (const [from, targets] of importGraph()) {
      for (const to of targets) {
        if (!to.startsWith('libs/ssh/')) continue;
        if (!from.startsWith('libs/ssh/') && !entries.includes(to)) wrong.push(`${from} -> ${to}`);
        if (from.startsWith('libs/connectors/') && to !== entries[0]) wrong.push(`${from} -> ${to}`);
        if (from.startsWith('libs/ssh/') && !from.startsWith('libs/ssh/src/service/') && to.startsWith('libs/ssh/src/service/')) wrong.push(`${from} -> ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps libs/net at the bottom: it imports no other library', () => {
    const wrong = [...importGraph()].filter(([from]) => from.startsWith('libs/net/')).flatMap(([from, targets]) => targets.filter((to) => !to.startsWith('libs/net/')).map((to) => `${from} -> ${to}`));
    expect(wrong).toEqual([]);
  });

  it('reaches each engine of libs/pki only through its index.ts, from other engines and from outside', () => {
    const engine = (file: string) => /^libs\/pki\/src\/([^/]+)\//.exec(file)?.[1];
    const wrong: string[] = [];
    for (const [from, targets] of importGraph()) {
      for (const to of targets) {
        const e = engine(to);
        if (e && engine(from) !== e && to !== `libs/pki/src/${e}/index.ts`) wrong.push(`${from} -> ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
