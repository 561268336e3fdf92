import { startTestServices, TestServices } from '../support/app';
import { discoverRoutes, expressRoutes } from './routes';

/**
 * Every route of both services with the permission it declares (or PUBLIC). A new route
 * shows up here in review; one with neither fails. After adding routes on purpose, update
 * the snapshot: `npx jest test/auth/route-permissions -u`.
 */
describe('route permissions (deny by default)', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  it.each(['vault', 'pki'] as const)('%s: every route declares a permission or is public', (name) => {
    const routes = discoverRoutes(s[name]);
    expect(routes.filter((r) => r.permission === 'MISSING').map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // The metadata walk finds exactly what the Express router answers.
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(expressRoutes(s[name]));
  });

  it.each(['vault', 'pki'] as const)('%s: route → permission snapshot', (name) => {
    expect(discoverRoutes(s[name]).map((r) => `${r.method.padEnd(6)} ${r.path} → ${r.permission}`)).toMatchSnapshot();
  });
});
