import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { readInputData } from './input-data';
import { normalizePathMiddleware, ParsedRequest, requestBodyMiddleware } from './request-body.middleware';
import { extractToken } from './token';

const UPLOADS = mkdtempSync(join(tmpdir(), 'request-forms-'));
afterAll(() => rmSync(UPLOADS, { recursive: true, force: true }));

// Each real form clients send INPUT_DATA and tokens in, through the real middleware.
function app() {
  const a = express();
  a.use(normalizePathMiddleware);
  a.use(requestBodyMiddleware({ maxFileSize: 1024 * 1024, maxUploadBytes: 4 * 1024 * 1024, maxConcurrentUploads: 4, uploadDir: UPLOADS }));
  a.all('/*path', (req, res) => {
    const r = req as ParsedRequest;
    try {
      res.json({ path: r.path, token: extractToken(r) ?? null, details: readInputData(r) });
    } catch (e) {
      res.json({ error: (e as Error).message });
    }
  });
  return a;
}

const details = { HOST: 'h', PORT: '443' };
const json = JSON.stringify({ operation: { Details: details } });

describe('INPUT_DATA and token carriers, as real clients send them', () => {
  it('query string of a GET', async () => {
    const res = await request(app()).get('/x').query({ INPUT_DATA: json, AUTHTOKEN: 't1' });
    expect(res.body).toMatchObject({ token: 't1', details });
  });

  it.each(['text/json', 'application/json', 'application/x-www-form-urlencoded', ''])(
    'urlencoded body labelled %j',
    async (type) => {
      const req = request(app()).post('/x');
      if (type) req.set('Content-Type', type);
      const res = await req.send(`AUTHTOKEN=t2&INPUT_DATA=${encodeURIComponent(json)}`);
      expect(res.body).toMatchObject({ token: 't2', details });
    },
  );

  it('urlencoded body of a GET', async () => {
    const res = await request(app()).get('/x').set('Content-Type', 'text/json').send(`INPUT_DATA=${encodeURIComponent(json)}`);
    expect(res.body.details).toEqual(details);
  });

  it('multipart field with a file beside it', async () => {
    const res = await request(app()).post('/x').field('INPUT_DATA', json).field('AUTHTOKEN', 't3').attach('File', Buffer.from('k'), 'k.pem');
    expect(res.body).toMatchObject({ token: 't3', details });
  });

  it('raw JSON body', async () => {
    const res = await request(app()).post('/x').set('Content-Type', 'application/json').send(json);
    expect(res.body.details).toEqual(details);
  });

  it.each([
    ["{'operation':{'Details':{'HOST':'h','PORT':'443'}}}"],
    ['{operation:{Details:{HOST:h,PORT:443}}}'],
  ])('relaxed form %s', async (text) => {
    const res = await request(app()).get('/x').query({ INPUT_DATA: text });
    expect(res.body.details).toEqual({ HOST: 'h', PORT: typeof res.body.details.PORT === 'number' ? 443 : '443' });
  });

  it('unparseable INPUT_DATA names INPUT_DATA', async () => {
    const res = await request(app()).get('/x').query({ INPUT_DATA: '{operation:' });
    expect(res.body.error).toMatch(/INPUT_DATA/);
  });

  it('pki trailing /AUTHTOKEN=<token> segment, doubled and trailing slashes', async () => {
    const res = await request(app()).get('/api/pki/restapi//getAllSSHKeys/AUTHTOKEN=t4');
    expect(res.body).toMatchObject({ path: '/api/pki/restapi/getAllSSHKeys', token: 't4' });
    const trailing = await request(app()).get('/a//b/').set('authtoken', 't5');
    expect(trailing.body).toMatchObject({ path: '/a/b', token: 't5' });
  });

  it('header carriers: AUTHTOKEN and APP_AUTHTOKEN in any case', async () => {
    expect((await request(app()).get('/x').set('AuthToken', 't6')).body.token).toBe('t6');
    expect((await request(app()).get('/x').set('APP_AUTHTOKEN', 't7')).body.token).toBe('t7');
    expect((await request(app()).get('/x').query({ APP_AUTHTOKEN: 't8', APP_NAME: 'a' })).body.token).toBe('t8');
  });
});
