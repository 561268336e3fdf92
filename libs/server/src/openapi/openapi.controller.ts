import { Controller, Get, Inject } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Layout, Public, routeCatalog } from '@app/http';
import { openApiDocument } from './openapi-document';

export const DEFAULT_LAYOUT = 'openapi:default-layout';

/**
 * GET /openapi.json: the service's API description. Public, like the specs it mirrors: it
 * names operations and fields, never data.
 */
@Public()
@Controller('openapi.json')
export class OpenApiController {
  private document?: Record<string, unknown>;

  constructor(
    private readonly modules: ModulesContainer,
    @Inject(DEFAULT_LAYOUT) private readonly defaultLayout: Layout,
  ) {}

  @Get()
  get(): Record<string, unknown> {
    this.document ??= openApiDocument({
      service: this.defaultLayout === 'pki' ? 'pki' : 'vault',
      version: packageVersion(),
      defaultLayout: this.defaultLayout,
      routes: routeCatalog(this.modules),
    });
    return this.document;
  }
}

// The nearest package.json above this file (the source tree or dist/).
function packageVersion(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
  }
  return '0.0.0';
}
