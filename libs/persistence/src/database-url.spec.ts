import { needsHostChoice, parseDatabaseUrl, withDatabaseName } from './database-url';

describe('parseDatabaseUrl', () => {
  it('cuts a libpq multi-host URL into one URL per host, in order, without target_session_attrs', () => {
    const target = parseDatabaseUrl('postgres://user:p%40ss@db1:5432,db2:5433/vault?target_session_attrs=read-write&sslmode=disable');
    expect(target.targetSessionAttrs).toBe('read-write');
    expect(target.hosts).toEqual([
      { host: 'db1', port: 5432, url: 'postgres://user:p%40ss@db1:5432/vault?sslmode=disable' },
      { host: 'db2', port: 5433, url: 'postgres://user:p%40ss@db2:5433/vault?sslmode=disable' },
    ]);
    expect(needsHostChoice(target)).toBe(true);
  });

  it('takes primary and any, default ports and bracketed IPv6 hosts', () => {
    const target = parseDatabaseUrl('postgresql://u@[::1]:6000,db2/vault?target_session_attrs=primary');
    expect(target.targetSessionAttrs).toBe('primary');
    expect(target.hosts.map((h) => [h.host, h.port, h.url])).toEqual([
      ['::1', 6000, 'postgresql://u@[::1]:6000/vault'],
      ['db2', 5432, 'postgresql://u@db2:5432/vault'],
    ]);
    expect(parseDatabaseUrl('postgres://a,b/x?target_session_attrs=any').targetSessionAttrs).toBe('any');
  });

  it('leaves a single-host URL as it is (no host choice)', () => {
    const url = 'postgres://postgres:secret@127.0.0.1:5432/vault';
    const target = parseDatabaseUrl(url);
    expect(target).toEqual({ hosts: [{ host: '127.0.0.1', port: 5432, url }], targetSessionAttrs: 'any' });
    expect(needsHostChoice(target)).toBe(false);
    expect(needsHostChoice(parseDatabaseUrl(`${url}?target_session_attrs=read-write`))).toBe(true);
  });

  it('refuses an attribute it does not know and a bad port', () => {
    expect(() => parseDatabaseUrl('postgres://a,b/x?target_session_attrs=prefer-standby')).toThrow(/target_session_attrs must be one of/);
    expect(() => parseDatabaseUrl('postgres://a:99999,b/x')).toThrow(/bad port/);
  });

  it('names another database on every host', () => {
    expect(withDatabaseName('postgres://u@a:1,b:2/vault?target_session_attrs=read-write', 'postgres')).toBe('postgres://u@a:1,b:2/postgres?target_session_attrs=read-write');
    expect(withDatabaseName('postgres://u@a:1', 'x')).toBe('postgres://u@a:1/x');
  });
});
