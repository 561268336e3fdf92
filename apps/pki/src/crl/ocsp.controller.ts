import { Controller, Get, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { Response } from 'express';
import { ParsedRequest, ProtocolOperation, Public } from '@app/http';
import { OcspService } from '@app/pki/cert-service';
import { OcspRefusalFilter } from './ocsp-refusal.filter';

const OCSP_RESPONSE = 'application/ocsp-response';

/**
 * Public, unauthenticated: the OCSP responder URL written into the Authority Information
 * Access of every certificate our CAs issue. POST carries the DER request as the body;
 * GET carries it base64 (then URL-encoded) as the last path segment (RFC 6960 appendix A).
 */
@UseFilters(OcspRefusalFilter)
@Controller()
export class OcspController {
  constructor(private readonly ocsp: OcspService) {}

  @Post('ocsp/:ca')
  @ProtocolOperation('ocsp', 'OCSPRequest')
  @Public()
  async post(@Param('ca') ca: string, @Req() req: ParsedRequest, @Res() res: Response) {
    send(res, await this.ocsp.respond(ca, req.rawBody ?? Buffer.alloc(0)), false);
  }

  @Get('ocsp/:ca/*request')
  @ProtocolOperation('ocsp', 'OCSPRequest')
  @Public()
  async get(@Param('ca') ca: string, @Req() req: ParsedRequest, @Res() res: Response) {
    send(res, await this.ocsp.respond(ca, requestFromPath(req.originalUrl)), true);
  }
}

/**
 * The base64 request from the URL as sent: the router collapses doubled slashes, which
 * base64 may contain, so the segment is taken from the original URL. A `+` that a client
 * left unencoded stays a `+`.
 */
function requestFromPath(originalUrl: string): Buffer {
  const path = originalUrl.split('?')[0];
  const match = /\/ocsp\/[^/]+\/(.+)$/.exec(path);
  if (!match) return Buffer.alloc(0);
  try {
    return Buffer.from(decodeURIComponent(match[1]), 'base64');
  } catch {
    return Buffer.alloc(0);
  }
}

function send(res: Response, reply: { der: Buffer; maxAgeSeconds: number }, cacheable: boolean): void {
  res.status(200).setHeader('Content-Type', OCSP_RESPONSE);
  if (cacheable && reply.maxAgeSeconds > 0) {
    res.setHeader('Cache-Control', `public, max-age=${reply.maxAgeSeconds}, no-transform, must-revalidate`);
    res.removeHeader('Pragma');
  }
  res.end(reply.der);
}
