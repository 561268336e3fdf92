import { RequestMethod, Type } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { Layout, LAYOUT, OPERATION, OperationMeta, PERMISSION, PROTOCOL, ProtocolMeta, PUBLIC } from './operation.decorator';

/** One route of a service as its metadata declares it: the source of names, metrics and the API document. */
export interface CatalogRoute {
  method: string;
  /** Express form: /restapi/json/v1/resources/:rid */
  path: string;
  controller: Function;
  handler: Function;
  operation?: OperationMeta;
  /** The declared permission; undefined for public routes (and for a route missing one). */
  permission?: string;
  isPublic: boolean;
  layout?: Layout;
  /** Set for a route of a standard protocol (ACME, OCSP), which answers no envelope. */
  protocol?: ProtocolMeta;
  /** The DTO of @Input(Dto), when the route reads INPUT_DATA. */
  input?: Type<object>;
  /** Parts named by @UploadedPart(name). */
  uploads: string[];
}

/** Every route of a Nest app, walked from controller metadata (the router answers exactly these). */
export function routeCatalog(modules: ModulesContainer): CatalogRoute[] {
  const routes = new Map<string, CatalogRoute>();
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Function | undefined;
      if (!controller) continue;
      for (const route of controllerRoutes(controller)) routes.set(`${route.method} ${route.path}`, route);
    }
  }
  return [...routes.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));
}

function controllerRoutes(controller: Function): CatalogRoute[] {
  const out: CatalogRoute[] = [];
  const bases = paths(Reflect.getMetadata(PATH_METADATA, controller));
  const classPublic = Reflect.getMetadata(PUBLIC, controller) === true;
  for (const name of Object.getOwnPropertyNames(controller.prototype)) {
    if (name === 'constructor') continue;
    const handler = controller.prototype[name];
    if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
    const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
    const isPublic = classPublic || Reflect.getMetadata(PUBLIC, handler) === true;
    const args = argumentsOf(controller, name);
    for (const base of bases) {
      for (const sub of paths(Reflect.getMetadata(PATH_METADATA, handler))) {
        out.push({
          method,
          path: joinPath(base, sub),
          controller,
          handler,
          operation: Reflect.getMetadata(OPERATION, handler),
          permission: isPublic ? undefined : Reflect.getMetadata(PERMISSION, handler),
          isPublic,
          layout: Reflect.getMetadata(LAYOUT, handler) ?? Reflect.getMetadata(LAYOUT, controller),
          protocol: Reflect.getMetadata(PROTOCOL, handler) ?? Reflect.getMetadata(PROTOCOL, controller),
          ...args,
        });
      }
    }
  }
  return out;
}

// @Input(Dto) leaves the DTO class as the argument's data; @UploadedPart(name) leaves the part name.
function argumentsOf(controller: Function, method: string): { input?: Type<object>; uploads: string[] } {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { data?: unknown }>;
  let input: Type<object> | undefined;
  const uploads: string[] = [];
  for (const [key, arg] of Object.entries(args)) {
    if (!key.includes(CUSTOM_ROUTE_ARGS_METADATA)) continue;
    if (typeof arg.data === 'function' && hasValidation(arg.data)) input = arg.data as Type<object>;
    else if (typeof arg.data === 'string') uploads.push(arg.data);
  }
  return { input, uploads };
}

function hasValidation(type: Function): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0;
}

function paths(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [value === undefined ? '' : String(value)];
}

function joinPath(base: string, sub: string): string {
  return `/${[base, sub].map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
}

/**
 * The catalog route a request path belongs to, for requests that never reach a Nest handler
 * (the lean routes, refusals before routing). Static segments win over parameters, as in
 * the controllers' declaration order.
 */
export class RouteMatcher<R extends Pick<CatalogRoute, 'method' | 'path'> = CatalogRoute> {
  private readonly entries: { method: string; pattern: RegExp; route: R; weight: number }[];

  constructor(routes: R[]) {
    this.entries = routes
      .map((route) => {
        const segments = route.path.split('/').filter(Boolean);
        return {
          method: route.method,
          pattern: new RegExp(`^/${segments.map(segmentPattern).join('/')}$`, 'i'),
          route,
          weight: segments.filter((s) => !/^[:*]/.test(s)).length * 100 + segments.length,
        };
      })
      .sort((a, b) => b.weight - a.weight);
  }

  match(method: string, path: string): R | undefined {
    const clean = `/${path.split('/').filter(Boolean).join('/')}`;
    return this.entries.find((e) => (e.method === method || e.method === 'ALL') && e.pattern.test(clean))?.route;
  }
}

// `:name` is one segment; `*name` (the OCSP GET's request) is the rest of the path, one segment or more.
function segmentPattern(segment: string): string {
  if (segment.startsWith(':')) return '[^/]+';
  if (segment.startsWith('*')) return '.+';
  return escape(segment);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
