import { Controller, Get, Head, Req, Res, UseFilters } from '@nestjs/common';
import { Response } from 'express';
import { ParsedRequest, ProtocolOperation, Public } from '@app/http';
import { AcmeVerifier } from '@app/pki/acme-service';
import { AcmeHttp } from './acme-http';
import { AcmeProblemFilter } from './acme-problem.filter';

/** RFC 8555 §7.1.1-7.2: the directory of one CA's ACME server and fresh nonces. Public: ACME authenticates by JWS. */
@Public()
@UseFilters(AcmeProblemFilter)
@Controller('acme/:ca')
export class AcmeDirectoryController {
  constructor(
    private readonly http: AcmeHttp,
    private readonly verifier: AcmeVerifier,
  ) {}

  @Get('directory')
  @ProtocolOperation('acme', 'directory')
  async directory(@Req() req: ParsedRequest, @Res() res: Response) {
    const urls = this.http.urls(req);
    await this.verifier.ca(urls);
    const body = {
      newNonce: urls.newNonce,
      newAccount: urls.newAccount,
      newOrder: urls.newOrder,
      revokeCert: urls.revokeCert,
      keyChange: urls.keyChange,
      meta: { externalAccountRequired: true },
    };
    res.setHeader('Content-Type', 'application/json');
    res.status(200).send(JSON.stringify(body));
  }

  @Head('new-nonce')
  @ProtocolOperation('acme', 'newNonce')
  async headNonce(@Req() req: ParsedRequest, @Res() res: Response) {
    const urls = this.http.urls(req);
    await this.verifier.ca(urls);
    await this.http.send(res, urls, { status: 200 });
  }

  @Get('new-nonce')
  @ProtocolOperation('acme', 'newNonce')
  async getNonce(@Req() req: ParsedRequest, @Res() res: Response) {
    const urls = this.http.urls(req);
    await this.verifier.ca(urls);
    await this.http.send(res, urls, { status: 204 });
  }
}
