import { Inject, Injectable } from '@nestjs/common';
import { Response } from 'express';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ParsedRequest } from '@app/http';
import { notFound } from '@app/pki/acme';
import { AcmeHttpRequest, AcmeReply, AcmeUrls, NonceStore } from '@app/pki/acme-service';

/** Between Express and the ACME services: absolute URLs, and replies with a fresh nonce and the index link. */
@Injectable()
export class AcmeHttp {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly nonces: NonceStore,
  ) {}

  /** PUBLIC_URL when set (behind a proxy), else the scheme and Host the client used. */
  urls(req: ParsedRequest): AcmeUrls {
    const base = this.config.publicUrl ?? `${req.protocol}://${req.headers.host ?? `localhost:${this.config.pkiPort}`}`;
    return new AcmeUrls(base, String(req.params.ca ?? ''));
  }

  request(req: ParsedRequest): AcmeHttpRequest {
    const urls = this.urls(req);
    return {
      urls,
      url: `${urls.base}${req.path}`,
      contentType: String(req.headers['content-type'] ?? ''),
      body: req.rawInput,
      ip: req.ip ?? '',
      userAgent: String(req.headers['user-agent'] ?? '').slice(0, 150),
    };
  }

  async send(res: Response, urls: AcmeUrls, reply: AcmeReply): Promise<void> {
    res.setHeader('Replay-Nonce', await this.nonces.issue());
    res.setHeader('Link', [`<${urls.directory}>;rel="index"`, ...(reply.links ?? [])]);
    if (reply.location) res.setHeader('Location', reply.location);
    res.status(reply.status);
    if (reply.body === undefined) {
      res.end();
      return;
    }
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.setHeader('Content-Type', reply.contentType ?? 'application/json');
    res.send(text);
  }
}

/** An id from the path: digits only, else the object does not exist. */
export function idOf(text: string, what: string): number {
  if (!/^\d{1,9}$/.test(text)) throw notFound(what);
  return Number(text);
}
