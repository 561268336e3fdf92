import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?'([^']+)'/gm;

/** The production sources (no specs): apps/ and libs/. */
export function sourceFiles(dirs = ['apps', 'libs']): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) out.push(relative(ROOT, path));
    }
  };
  for (const dir of dirs) walk(join(ROOT, dir));
  return out.sort();
}

/** A module specifier as the file it names (the tsconfig paths: @app/pki/*, @app/ssh/* and @app/*), or undefined for a package. */
export function resolveImport(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('.')) base = join(dirname(from), specifier);
  else if (/^@app\/(pki|ssh)\//.test(specifier)) {
    const [, lib, rest] = /^@app\/([a-z]+)\/(.*)$/.exec(specifier)!;
    base = join('libs', lib, 'src', rest);
  } else if (specifier.startsWith('@app/')) base = join('libs', specifier.slice('@app/'.length), 'src');
  else return undefined;
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(join(ROOT, candidate))) return candidate;
  return undefined;
}

/** Each file's imports of other files of the tree (type-only imports included). */
export function importGraph(files = sourceFiles()): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveImport(file, match[1]);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected groups of more than one file (Tarjan): each is an import circle. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}
