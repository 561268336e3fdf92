import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Response } from 'express';
import { map, Observable } from 'rxjs';
import { buildEnvelope, envelopeBytes } from './envelope';
import { EdgeAwareRequest, refuseUnstorableParams } from './edge-input';
import { layoutOf, operationOf } from './operation-meta';
import { FileReply, HtmlReply, JsonReply, RenderedList, Reply, TextReply } from './reply';
import { noteAnswer } from './request-note';

/** Wraps every handler's Reply in the envelope its route metadata names. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const meta = operationOf(this.reflector, context);
    const layout = layoutOf(this.reflector, context, 'vaultA');
    const res = context.switchToHttp().getResponse<Response>();
    refuseUnstorableParams(context.switchToHttp().getRequest<EdgeAwareRequest>());
    return next.handle().pipe(
      map((value: unknown) => {
        // The original servers answer 200 to every call, POST included (Nest says 201).
        const httpStatus = value instanceof TextReply || value instanceof JsonReply || value instanceof HtmlReply ? value.httpStatus : 200;
        res.status(httpStatus);
        const reply = value as Reply | undefined;
        noteAnswer(res, httpStatus, value instanceof FileReply || value instanceof TextReply || value instanceof HtmlReply ? undefined : (reply?.status ?? meta?.successText));
        if (value instanceof FileReply) {
          // A browser must not guess a stored file's type (an uploaded .html would run as a page).
          res.setHeader('X-Content-Type-Options', 'nosniff');
          return new StreamableFile(value.body, { type: value.contentType, disposition: value.disposition, length: value.body.length });
        }
        if (value instanceof JsonReply) return value.body;
        if (value instanceof HtmlReply) {
          for (const [name, header] of Object.entries(value.headers)) res.setHeader(name, header);
          res.setHeader('Content-Type', value.contentType);
          return value.html;
        }
        if (value instanceof TextReply) {
          res.type('text/plain; charset=utf-8');
          return value.text;
        }
        if (!meta) return value;
        const envelope = buildEnvelope({
          ...meta,
          layout,
          status: reply!.status ?? meta.successText ?? 'Success',
          reply: reply!,
        });
        if (!(reply!.details instanceof RenderedList)) return envelope;
        const body = envelopeBytes(envelope);
        return new StreamableFile(body, { type: 'application/json; charset=utf-8', length: body.length });
      }),
    );
  }
}
