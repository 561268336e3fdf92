import { Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Actor } from '@app/audit';
import { AuthedRequest, Authenticator, LeanWriteRoute } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/config';
import { LeanRoutes, maxTextBody, OPERATION, parseInput, PERMISSION, readField, Reply } from '@app/http';
import { CreateResourceDto } from './resource.dto';
import { ResourceWriter } from './resource-writer';
import { ResourcesController } from './resources.controller';

/**
 * POST /resources with a form or JSON body (the benchmarked creation), without Express and
 * Nest's per-request machinery: the same input DTO and ResourceWriter.create as
 * ResourcesController.create. A multipart body (a file) is left to the controller.
 */
@Injectable()
export class ResourceCreateLeanRoute extends LeanWriteRoute {
  constructor(
    private readonly writer: ResourceWriter,
    authenticator: Authenticator,
    reflector: Reflector,
    routes: LeanRoutes,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const handler = ResourcesController.prototype.create;
    super(authenticator, {
      method: 'POST',
      path: /^\/restapi\/json\/v1\/resources$/,
      meta: reflector.get(OPERATION, handler),
      permission: reflector.get(PERMISSION, handler),
      route: { handler, controller: ResourcesController },
      maxBody: maxTextBody(config.maxFileSize),
    });
    routes.register(this);
  }

  protected serve(actor: Actor, req: AuthedRequest): Promise<Reply> {
    return this.writer.create(actor, parseInput(CreateResourceDto, (name) => readField(req, name)), undefined, req);
  }
}
