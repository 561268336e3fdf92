import 'reflect-metadata';

// `npm run bench [-- name ...]`: runs the named benchmarks (default: all) one after the other.
const BENCHES: Record<string, () => Promise<unknown>> = {
  seed: async () => (await import('./seed')).main(),
  'password-read': async () => (await import('./password-read')).main(),
  'resources-list': async () => (await import('./resources-list')).main(),
  writes: async () => (await import('./writes')).main(),
  'checkout-cycle': async () => (await import('./checkout-cycle')).main(),
  'audit-verify': async () => (await import('./audit-verify')).main(),
  'audit-seal': async () => (await import('./audit-seal')).main(),
  'audit-paging': async () => (await import('./audit-paging')).main(),
  'discovery': async () => (await import('./discovery')).main(),
  'cert-sign': async () => (await import('./cert-sign')).main(),
  keygen: async () => (await import('./keygen')).main(),
  'acme-order': async () => (await import('./acme-order')).main(),
  ocsp: async () => (await import('./ocsp')).main(),
  'preauth-memory': async () => (await import('./preauth-memory')).main(),
  connectors: async () => (await import('./connectors')).main(),
  rotation: async () => (await import('./rotation')).main(),
  console: async () => (await import('./console')).main(),
  directory: async () => (await import('./directory')).main(),
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = wanted.length ? wanted : Object.keys(BENCHES);
  for (const name of names) {
    const bench = BENCHES[name];
    if (!bench) throw new Error(`Unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
    console.log(`\n=== ${name}`);
    await bench();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
