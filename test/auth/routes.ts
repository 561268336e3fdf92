import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { SECRET_PATH } from '@app/gate';
import { PERMISSION, PUBLIC } from '@app/http';

export interface RouteEntry {
  method: string;
  path: string;
  /** The declared permission, or PUBLIC, or MISSING (the guard refuses such a route). */
  permission: string;
  /** The secret use a route declares with @SecretPath, if any. */
  secret?: string;
}

/** Every route of a Nest app from controller metadata, as the guard sees it. */
export function discoverRoutes(app: INestApplication): RouteEntry[] {
  const routes = new Map<string, RouteEntry>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Function | undefined;
      if (!controller) continue;
      const bases = paths(Reflect.getMetadata(PATH_METADATA, controller));
      const classPublic = Reflect.getMetadata(PUBLIC, controller) === true;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        if (name === 'constructor') continue;
        const handler = controller.prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const isPublic = classPublic || Reflect.getMetadata(PUBLIC, handler) === true;
        const permission = isPublic ? 'PUBLIC' : ((Reflect.getMetadata(PERMISSION, handler) as string | undefined) ?? 'MISSING');
        for (const base of bases) {
          for (const sub of paths(Reflect.getMetadata(PATH_METADATA, handler))) {
            const path = join(base, sub);
            const secret = Reflect.getMetadata(SECRET_PATH, handler) as string | undefined;
            routes.set(`${method} ${path}`, { method, path, permission, ...(secret ? { secret } : {}) });
          }
        }
      }
    }
  }
  return [...routes.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));
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

function paths(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [value === undefined ? '' : String(value)];
}

function join(base: string, sub: string): string {
  const path = `/${[base, sub].map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
  return path;
}
