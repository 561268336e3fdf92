import { INestApplication } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { getMetadataStorage } from 'class-validator';
import { Layout, LAYOUT, OPERATION, OperationMeta, PROTOCOL, ProtocolMeta } from '@app/http';
import { discoverRoutes } from '../auth/routes';

export type Service = 'vault' | 'pki';

/** One route as the fuzzer drives it: where it is, what it reads, how it answers. */
export interface FuzzRoute {
  service: Service;
  method: string;
  path: string;
  permission: string;
  /** Layout of its envelope; errors before the handler is known use the service default. */
  layout: Layout;
  operation?: OperationMeta;
  /** A route of a standard protocol (ACME, OCSP): it answers in that protocol, not an envelope. */
  protocol?: ProtocolMeta;
  /** Field names its DTOs declare (INPUT_DATA Details, query or form). */
  fields: string[];
  /** Multipart part names it reads files from. */
  parts: string[];
}

export const DEFAULT_LAYOUT: Record<Service, Layout> = { vault: 'vaultA', pki: 'pki' };

/** Every route of the service (the list the permission snapshot walks), with what it reads. */
export function fuzzRoutes(app: INestApplication, service: Service): FuzzRoute[] {
  return discoverRoutes(app).map((route) => {
    const handler = (route.controller.prototype as Record<string, Function>)[route.handlerName];
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.handlerName) ?? {}) as Record<string, { data?: unknown }>;
    const fields = new Set<string>();
    const parts: string[] = [];
    for (const [key, arg] of Object.entries(args)) {
      if (!key.includes(CUSTOM_ROUTE_ARGS_METADATA)) continue;
      if (typeof arg.data === 'function') for (const name of dtoFields(arg.data)) fields.add(name);
      if (typeof arg.data === 'string') parts.push(arg.data);
    }
    const layout = (Reflect.getMetadata(LAYOUT, handler) ?? Reflect.getMetadata(LAYOUT, route.controller) ?? DEFAULT_LAYOUT[service]) as Layout;
    const operation = Reflect.getMetadata(OPERATION, handler) as OperationMeta | undefined;
    const protocol = (Reflect.getMetadata(PROTOCOL, handler) ?? Reflect.getMetadata(PROTOCOL, route.controller)) as ProtocolMeta | undefined;
    return { service, method: route.method, path: route.path, permission: route.permission, layout, operation, protocol, fields: [...fields], parts };
  });
}

/** Every field name any DTO declares: a pool for routes that read input without a DTO. */
export function allDtoFields(): string[] {
  const metas = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, { propertyName: string }[]> | { propertyName: string }[] };
  const list = metas.validationMetadatas instanceof Map ? [...metas.validationMetadatas.values()].flat() : metas.validationMetadatas;
  return [...new Set(list.map((m) => m.propertyName))].sort();
}

function dtoFields(dto: Function): string[] {
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).map((m) => m.propertyName))];
}
