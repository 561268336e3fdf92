import { Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Actor } from '@app/audit';
import { AuthedRequest, Authenticator, LeanWriteRoute } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/config';
import { LeanRoutes, maxTextBody, parseInput, readField, Reply } from '@app/http';
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
    super(authenticator, reflector, routes, {
      method: 'POST',
      path: /^\/restapi\/json\/v1\/resources$/,
      controller: ResourcesController,
      handler: ResourcesController.prototype.create,
      maxBody: maxTextBody(config.maxFileSize),
    });
  }

  protected serve(actor: Actor, req: AuthedRequest): Promise<Reply> {
    return this.writer.create(actor, parseInput(CreateResourceDto, (name) => readField(req, name)), undefined, req);
  }
}
