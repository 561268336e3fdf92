import { Controller, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { Response } from 'express';
import { ParsedRequest, ProtocolOperation, Public } from '@app/http';
import { AcmeCertificatesService, AcmeChallengesService, AcmeOrdersService } from '@app/pki/acme-service';
import { AcmeHttp, idOf } from './acme-http';
import { AcmeProblemFilter } from './acme-problem.filter';

/** Orders, authorisations, challenges, finalisation and download (RFC 8555 §7.4-7.5). */
@Public()
@UseFilters(AcmeProblemFilter)
@Controller('acme/:ca')
export class AcmeOrderController {
  constructor(
    private readonly http: AcmeHttp,
    private readonly orders: AcmeOrdersService,
    private readonly challenges: AcmeChallengesService,
    private readonly certificates: AcmeCertificatesService,
  ) {}

  @Post('new-order')
  @ProtocolOperation('acme', 'newOrder')
  async newOrder(@Req() req: ParsedRequest, @Res() res: Response) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.orders.newOrder(r));
  }

  @Post('order/:id')
  @ProtocolOperation('acme', 'order')
  async order(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.orders.order(r, idOf(id, 'order')));
  }

  @Post('order/:id/finalize')
  @ProtocolOperation('acme', 'finalize')
  async finalize(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.certificates.finalize(r, idOf(id, 'order')));
  }

  @Post('authz/:id')
  @ProtocolOperation('acme', 'authorization')
  async authz(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.orders.authz(r, idOf(id, 'authorization')));
  }

  @Post('chall/:id')
  @ProtocolOperation('acme', 'challenge')
  async challenge(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.challenges.respond(r, idOf(id, 'challenge')));
  }

  @Post('cert/:id')
  @ProtocolOperation('acme', 'certificate')
  async certificate(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.certificates.download(r, idOf(id, 'certificate')));
  }
}
