import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { SECRET_PATH } from '@app/gate';
import { routeCatalog } from '@app/http';

export interface RouteEntry {
  method: string;
  path: string;
  /** The declared permission, or PUBLIC, or MISSING (the guard refuses such a route). */
  permission: string;
  /** The secret use a route declares with @SecretPath, if any. */
  secret?: string;
  /** The controller class and handler method (for tools that read more metadata, e.g. the fuzzer). */
  controller: Function;
  handlerName: string;
}

/** Every route of a Nest app from controller metadata (the production route catalog), as the guard sees it. */
export function discoverRoutes(app: INestApplication): RouteEntry[] {
  return routeCatalog(app.get(ModulesContainer)).map((r) => ({
    method: r.method,
    path: r.path,
    permission: r.isPublic ? 'PUBLIC' : (r.permission ?? 'MISSING'),
    controller: r.controller,
    handlerName: r.handler.name,
    ...secretOf(r.handler),
  }));
}

/** METHOD PATH pairs registered in the Express router: what actually answers. */
export function expressRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: Layer[] }; _router?: { stack: Layer[] } };
  const stack = (express.router ?? express._router)?.stack ?? [];
  const out = new Set<string>();
  for (const layer of stack) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods)) out.add(`${method.toUpperCase()} ${layer.route.path}`);
  }
  return [...out].sort();
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

function secretOf(handler: Function): { secret?: string } {
  const secret = Reflect.getMetadata(SECRET_PATH, handler) as string | undefined;
  return secret ? { secret } : {};
}
