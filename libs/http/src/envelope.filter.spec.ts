import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from './app-error';
import { QueryFailedError } from 'typeorm';
import { EnvelopeExceptionFilter } from './envelope.filter';

function host(): { host: ArgumentsHost; sent: { status?: number; body?: any } } {
  const sent: { status?: number; body?: any } = {};
  const res = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  const req = { method: 'GET', path: '/restapi/json/v1/x' };
  const h = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  return { host: h, sent };
}

describe('EnvelopeExceptionFilter', () => {
  const filter = new EnvelopeExceptionFilter(new Reflector(), 'vaultA');

  it('answers an application error as HTTP 200 Failed with its message', () => {
    const { host: h, sent } = host();
    filter.catch(AppError.notFound('No such account found'), h);
    expect(sent).toEqual({ status: 200, body: { operation: { name: '', result: { status: 'Failed', message: 'No such account found' } } } });
  });

  it('answers an unexpected fault as 500 with an error id that is in the log, never a stack trace', () => {
    const { host: h, sent } = host();
    const logged: string[] = [];
    const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((m: unknown) => void logged.push(String(m)));
    filter.catch(new TypeError('boom at secret place'), h);
    spy.mockRestore();
    expect(sent.status).toBe(500);
    const message: string = sent.body.operation.result.message;
    const id = /error id ([0-9a-f-]{36})/.exec(message)![1];
    expect(message).not.toMatch(/boom|at |TypeError/);
    expect(logged.join('\n')).toContain(id);
  });

  it('answers an unknown route 404 in the envelope', () => {
    const { host: h, sent } = host();
    filter.catch(new NotFoundException(), h);
    expect(sent.status).toBe(404);
    expect(sent.body.operation.result).toEqual({ status: 'Failed', message: 'No such operation: GET /restapi/json/v1/x' });
  });

  const driverError = (code: string, message: string) =>
    new QueryFailedError('SELECT $1', ['secret-value'], Object.assign(new Error(message), { code }));

  it('answers input PostgreSQL refused as data (class 22) as Failed, naming no value, not a 500', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const cases: [string, string, string][] = [
      ['22021', 'invalid byte sequence for encoding "UTF8": 0x00', 'A value in the request holds a character that cannot be stored'],
      ['22003', 'value "99999999999" is out of range for type integer', 'A number in the request is out of range'],
      ['22P02', 'invalid input syntax for type integer', 'A value in the request has the wrong form'],
      ['22023', 'something else', 'A value in the request cannot be stored'],
    ];
    for (const [code, driverMessage, message] of cases) {
      const { host: h, sent } = host();
      filter.catch(driverError(code, driverMessage), h);
      expect(sent).toEqual({ status: 200, body: { operation: { name: '', result: { status: 'Failed', message } } } });
    }
    warn.mockRestore();
  });

  it('answers a database out of reach as 503 with a plain message', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const faults = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      new Error('Database connection provided by a query runner was already released, cannot continue to use its querying methods anymore.'),
      driverError('57P01', 'terminating connection due to administrator command'),
      driverError('57014', 'canceling statement due to statement timeout'),
      // A primary demoted under a pooled connection, and no host of a multi-host URL writable.
      driverError('25006', 'cannot execute UPDATE in a read-only transaction'),
      driverError('57P03', 'the database system is not yet accepting connections'),
      Object.assign(new Error('No database host accepts a read-write session: 127.0.0.1:5433 is a standby'), { code: '08001' }),
    ];
    for (const fault of faults) {
      const { host: h, sent } = host();
      filter.catch(fault, h);
      expect(sent).toEqual({ status: 503, body: { operation: { name: '', result: { status: 'Failed', message: 'The database is unavailable; try again shortly' } } } });
    }
    warn.mockRestore();
  });
});
