import { Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Actor } from '@app/audit';
import {
  admissionBeforeBody,
  BodyGate,
  bodyGate,
  buildEnvelope,
  errorAnswer,
  hasNoBody,
  leaveUnread,
  LeanRoute,
  LeanRoutes,
  leanRequest,
  OPERATION,
  OperationMeta,
  PERMISSION,
  readTextBody,
  Reply,
  RouteInfo,
  sendJson,
  splitUrl,
} from '@app/http';
import { Authenticator } from './authenticator';
import { AuthedRequest } from './token.guard';

/** What a lean write route answers for: one method, one exact path, one controller handler. */
export interface LeanWriteSpec {
  method: 'POST' | 'PUT';
  path: RegExp;
  /** The controller and handler the long way would run: their operation and permission apply. */
  controller: Function;
  handler: Function;
  /** The body limit requestBodyMiddleware applies (maxTextBody). */
  maxBody: number;
}

/**
 * A write with a form or JSON body, served before Express and Nest (see LeanRoute). Unless
 * the route authenticates in its own statement (serveAsCaller), the edge is the long way's,
 * step for step: a token before the body is looked up before any
 * byte of it is read (a token that would be refused has its body left unread, and without
 * one at most PREAUTH_BODY_LIMIT bytes are read), the body is read by the same reader, then the caller is admitted by the same Authenticator with the route's
 * permission (reusing that one look-up, as the guard does), and the answer is built by the
 * same envelope and error mapping. Multipart bodies and other shapes go the long way.
 */
export abstract class LeanWriteRoute extends LeanRoute {
  private readonly logger = new Logger('Errors');
  private readonly meta: OperationMeta;
  private readonly permission: string;
  private readonly route: RouteInfo;
  private readonly gate: BodyGate;

  constructor(
    private readonly authenticator: Authenticator,
    reflector: Reflector,
    routes: LeanRoutes,
    private readonly spec: LeanWriteSpec,
  ) {
    super();
    this.meta = reflector.get(OPERATION, spec.handler);
    this.permission = reflector.get(PERMISSION, spec.handler);
    this.route = { handler: spec.handler, controller: spec.controller };
    // After a refusal, at most a body this route would read is dropped (closeAfterAnswer).
    this.gate = bodyGate((token, req) => authenticator.isAdmissible(token, req), spec.maxBody);
    routes.register(this);
  }

  /** The handler's work once the caller is admitted; throws as the controller would. */
  protected abstract serve(actor: Actor, req: AuthedRequest, match: RegExpExecArray): Promise<Reply>;

  /**
   * A route whose statement authenticates as it decides (the token's look-up joined to it)
   * defines this instead of having the caller admitted first: it is handed the request with
   * its body read, and must authenticate (in its statement, or by `authenticate`) before
   * anything else. No look-up precedes the body, so the body is read as one without an
   * admitted token is: at most PREAUTH_BODY_LIMIT bytes unless the token would be admitted.
   * A body that could not be read is answered the long way: the caller authenticated, then
   * the body's error.
   */
  protected serveAsCaller?(req: AuthedRequest, match: RegExpExecArray): Promise<Reply>;

  /** Admits the request's caller through the Authenticator with the route's permission (as the guard does). */
  protected async authenticate(req: AuthedRequest): Promise<Actor> {
    req.actor = await this.authenticator.authenticate(req, this.permission);
    return req.actor;
  }

  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== this.spec.method || hasNoBody(req) || /^multipart\//i.test(req.headers['content-type'] ?? '')) return false;
    const { path, search } = splitUrl(req.url ?? '');
    const match = this.spec.path.exec(path);
    if (!match) return false;
    void this.run(leanRequest(req, path, search.slice(1)) as AuthedRequest, res, match);
    return true;
  }

  private async run(req: AuthedRequest, res: ServerResponse, match: RegExpExecArray): Promise<void> {
    const { meta } = this;
    try {
      req.route_ = this.route;
      const reply = this.serveAsCaller ? await this.runAsCaller(req, res, match) : await this.serve(await this.admit(req, res), req, match);
      sendJson(res, 200, buildEnvelope({ ...meta, layout: 'vaultA', status: reply.status ?? meta.successText ?? 'Success', reply }));
    } catch (error) {
      const answer = errorAnswer(error, { layout: 'vaultA', meta }, req.method ?? '', req.path, this.logger);
      sendJson(res, answer.status, answer.body);
    }
  }

  private async runAsCaller(req: AuthedRequest, res: ServerResponse, match: RegExpExecArray): Promise<Reply> {
    await new Promise<void>((done) => readTextBody(req, this.spec.maxBody, done, { res, gate: this.gate }));
    if (req.bodyError) return this.serve(await this.authenticate(req), req, match);
    return this.serveAsCaller!(req, match);
  }

  private async admit(req: AuthedRequest, res: ServerResponse): Promise<Actor> {
    const admitted = await admissionBeforeBody(req, this.gate);
    if (admitted === false) leaveUnread(req, res, this.gate);
    else await new Promise<void>((done) => readTextBody(req, this.spec.maxBody, done, admitted ? undefined : { res, gate: this.gate }));
    req.actor = await this.authenticator.authenticate(req, this.permission);
    return req.actor;
  }
}
