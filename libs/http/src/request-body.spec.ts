import express from 'express';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AUTH_FAILED_MESSAGE } from './app-error';
import { readField, uploadedFile } from './input-data';
import { ParsedRequest, RequestBodyOptions, requestBodyMiddleware } from './request-body.middleware';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** An app whose handler reports what the middleware read and what is on disk meanwhile. */
function app(options: Partial<RequestBodyOptions> = {}) {
  const uploadDir = mkdtempSync(join(tmpdir(), 'request-body-'));
  roots.push(uploadDir);
  const a = express();
  a.use(requestBodyMiddleware({ maxFileSize: 1024 * 1024, maxUploadBytes: 1536 * 1024, maxConcurrentUploads: 4, uploadDir, ...options }));
  a.all('/*path', async (req, res) => {
    const r = req as ParsedRequest;
    const onDisk = readdirSync(uploadDir).length;
    try {
      const file = uploadedFile(r, 'File');
      res.json({ field: readField(r, 'keyName') ?? null, fileSize: file?.buffer.length ?? null, error: null, onDisk });
    } catch (error) {
      res.json({ error: (error as Error).message, onDisk });
    }
  });
  return { app: a, uploadDir };
}

function listening(a: express.Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = a.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const upload = (target: express.Express, size: number, token = 'good') =>
  request(target).post('/x').set('AUTHTOKEN', token).field('keyName', 'k').attach('File', Buffer.alloc(size, 1), 'f.bin');

describe('request bodies: token first, multipart to temporary files', () => {
  it('never reads the body of a request whose header token is unknown', async () => {
    const { app: a, uploadDir } = app({ admissible: async (token) => token === 'good' });
    const res = await upload(a, 512 * 1024, 'bad');
    expect(res.body).toEqual({ error: AUTH_FAILED_MESSAGE, onDisk: 0 });
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('reads a known token’s upload through a temporary folder that is gone after the answer', async () => {
    const { app: a, uploadDir } = app({ admissible: async (token) => token === 'good' });
    const res = await upload(a, 512 * 1024);
    expect(res.body).toEqual({ field: 'k', fileSize: 512 * 1024, error: null, onDisk: 1 });
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('refuses files beyond the per-file and the total limits, by name', async () => {
    const { app: a, uploadDir } = app();
    expect((await upload(a, 1024 * 1024 + 1)).body.error).toBe('The uploaded file is larger than the limit of 1048576 bytes');
    const two = await request(a)
      .post('/x')
      .attach('File', Buffer.alloc(900 * 1024), 'a.bin')
      .attach('Other', Buffer.alloc(900 * 1024), 'b.bin');
    expect(two.body.error).toBe('The uploaded files and fields are larger than the limit of 1572864 bytes in total');
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('caps the uploads received at once: the next one answers Failed unread', async () => {
    const { app: a } = app({ maxConcurrentUploads: 1 });
    const server = await listening(a);
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}`;
    // The first upload stays in progress: its body is only partly sent.
    const slow = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/x', headers: { 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': 999999 } });
    slow.on('error', () => undefined);
    slow.write('--b\r\nContent-Disposition: form-data; name="File"; filename="f"\r\n\r\n' + 'x'.repeat(1024));
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await request(url).post('/x').attach('File', Buffer.alloc(10), 'b.bin');
      expect(second.body.error).toBe('Too many uploads in progress (at most 1 at once); try again shortly');
      slow.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const third = await request(url).post('/x').field('keyName', 'k').attach('File', Buffer.alloc(10), 'c.bin');
      expect(third.body).toMatchObject({ field: 'k', fileSize: 10, error: null });
    } finally {
      slow.destroy();
      server.close();
    }
  });

  it('gives the upload slot back after a multipart body it cannot read', async () => {
    const { app: a } = app({ maxConcurrentUploads: 1 });
    for (let i = 0; i < 2; i++) {
      const bad = await request(a).post('/x').set('Content-Type', 'multipart/form-data').send('no boundary');
      expect(bad.body.error).toMatch(/^The multipart body could not be read: /);
    }
    expect((await upload(a, 10)).body).toMatchObject({ field: 'k', fileSize: 10, error: null });
  });

  it('refuses a part without a name, field or file', async () => {
    const { app: a } = app();
    for (const disposition of ['form-data', 'form-data; filename="f.bin"']) {
      const body = `--b\r\nContent-Disposition: ${disposition}\r\n\r\nvalue\r\n--b--\r\n`;
      const res = await request(a).post('/x').set('Content-Type', 'multipart/form-data; boundary=b').send(body);
      expect(res.body.error).toBe('The multipart body could not be read: a part has no name');
    }
  });

  it('removes the temporary folder of an upload the client abandons', async () => {
    const { app: a, uploadDir } = app();
    const server = await listening(a);
    const port = (server.address() as AddressInfo).port;
    try {
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/x', headers: { 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': 999999 } });
        req.on('error', () => resolve());
        req.write('--b\r\nContent-Disposition: form-data; name="File"; filename="f"\r\n\r\n' + 'x'.repeat(64 * 1024));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
      for (let i = 0; i < 50 && readdirSync(uploadDir).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(readdirSync(uploadDir)).toEqual([]);
      expect(existsSync(uploadDir)).toBe(true);
    } finally {
      server.close();
    }
  });
});
