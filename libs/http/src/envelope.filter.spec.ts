import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from './app-error';
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
});
