import request from 'supertest';
import { Keyring } from '@app/crypto';
import { AdminContext } from '../../scripts/admin/context';
import { TestServices } from '../support/app';
import { inputData, Json } from '../support/http';

const PREFIX = '/restapi/json/v1';

/** Prefix-A calls as the Python clients make them: token header, INPUT_DATA in the query or a form body. */
export function vaultClient(s: TestServices, token: string) {
  const withInput = (req: request.Test, details?: Json, inBody = true) => {
    req.set('AUTHTOKEN', token);
    if (!details) return req;
    return inBody ? req.set('Content-Type', 'text/json').send(`INPUT_DATA=${encodeURIComponent(inputData(details))}`) : req.query({ INPUT_DATA: inputData(details) });
  };
  return {
    get: (path: string, details?: Json) => withInput(request(s.vaultUrl).get(PREFIX + path), details, false),
    post: (path: string, details?: Json) => withInput(request(s.vaultUrl).post(PREFIX + path), details),
    put: (path: string, details?: Json) => withInput(request(s.vaultUrl).put(PREFIX + path), details),
    delete: (path: string) => withInput(request(s.vaultUrl).delete(PREFIX + path)),
  };
}

export type VaultClient = ReturnType<typeof vaultClient>;

/** The admin CLI's context over the test services' database. */
export function adminContext(s: TestServices): AdminContext {
  return {
    config: s.config,
    dataSource: s.dataSource,
    databaseUrl: s.databaseUrl,
    keyring: async () => s.vault.get(Keyring),
    close: async () => undefined,
  };
}

export async function auditRows(s: TestServices, where: string, params: unknown[] = []): Promise<Json[]> {
  return s.dataSource.query(`SELECT * FROM audit WHERE ${where} ORDER BY id`, params);
}
