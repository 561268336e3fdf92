import { Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IncomingMessage, ServerResponse } from 'node:http';
import { AuthedRequest } from '@app/auth';
import { buildEnvelope, errorAnswer, hasNoBody, LeanRoute, LeanRoutes, leanRequest, OPERATION, OperationMeta, parseInput, readField, RouteInfo, sendJson, splitUrl } from '@app/http';
import { parseId } from '../common/ids';
import { RetrievePasswordDto } from './password.dto';
import { PasswordReader } from './password-reader';
import { PasswordsController } from './passwords.controller';

const PATH = /^\/restapi\/json\/v1\/resources\/([^/]+)\/accounts\/([^/]+)\/password$/;

/**
 * GET .../password, the benchmarked hot path, in its plain form (exact path, no body):
 * the same reader (which authenticates the caller in its one statement), input DTO,
 * envelope and error mapping as PasswordsController.retrieve, without Express and Nest's
 * per-request machinery. Every other form of the call is left to the controller.
 */
@Injectable()
export class PasswordReadLeanRoute extends LeanRoute {
  private readonly logger = new Logger('Errors');
  private readonly meta: OperationMeta;
  // Named like the guard names it, so the request log and metrics find the operation without matching the path.
  private readonly route: RouteInfo = { handler: PasswordsController.prototype.retrieve, controller: PasswordsController };

  constructor(
    private readonly reader: PasswordReader,
    reflector: Reflector,
    routes: LeanRoutes,
  ) {
    super();
    this.meta = reflector.get<OperationMeta>(OPERATION, PasswordsController.prototype.retrieve);
    routes.register(this);
  }

  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || !hasNoBody(req)) return false;
    const { path, search } = splitUrl(req.url ?? '');
    const match = PATH.exec(path);
    if (!match) return false;
    void this.serve(leanRequest(req, path, search.slice(1)) as AuthedRequest, res, match);
    return true;
  }

  private async serve(req: AuthedRequest, res: ServerResponse, match: RegExpExecArray): Promise<void> {
    try {
      req.route_ = this.route;
      const dto = parseInput(RetrievePasswordDto, (name) => readField(req, name));
      const rid = parseId(decodeURIComponent(match[1]), 'resource id');
      const aid = parseId(decodeURIComponent(match[2]), 'account id');
      const reply = await this.reader.readAsCaller(req, rid, aid, dto.REASON, dto.TICKETID);
      sendJson(res, 200, buildEnvelope({ layout: 'vaultA', name: this.meta.name, status: 'Success', reply }));
    } catch (error) {
      const answer = errorAnswer(error, { layout: 'vaultA', meta: this.meta }, 'GET', req.path, this.logger);
      sendJson(res, answer.status, answer.body);
    }
  }
}
