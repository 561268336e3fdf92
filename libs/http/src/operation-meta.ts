import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Layout, LAYOUT, OPERATION, OperationMeta } from './operation.decorator';

export function operationOf(reflector: Reflector, context: ExecutionContext): OperationMeta | undefined {
  return reflector.get<OperationMeta>(OPERATION, context.getHandler());
}

export function layoutOf(reflector: Reflector, context: ExecutionContext, fallback: Layout): Layout {
  return reflector.getAllAndOverride<Layout>(LAYOUT, [context.getHandler(), context.getClass()]) ?? fallback;
}
