import { Controller, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { Response } from 'express';
import { ParsedRequest, ProtocolOperation, Public } from '@app/http';
import { AcmeAccountsService, AcmeCertificatesService } from '@app/pki/acme-service';
import { AcmeHttp, idOf } from './acme-http';
import { AcmeProblemFilter } from './acme-problem.filter';

/** Accounts (RFC 8555 §7.3), key-change and revocation (§7.6). */
@Public()
@UseFilters(AcmeProblemFilter)
@Controller('acme/:ca')
export class AcmeAccountController {
  constructor(
    private readonly http: AcmeHttp,
    private readonly accounts: AcmeAccountsService,
    private readonly certificates: AcmeCertificatesService,
  ) {}

  @Post('new-account')
  @ProtocolOperation('acme', 'newAccount')
  async newAccount(@Req() req: ParsedRequest, @Res() res: Response) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.accounts.newAccount(r));
  }

  @Post('acct/:id')
  @ProtocolOperation('acme', 'account')
  async account(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.accounts.update(r, idOf(id, 'account')));
  }

  @Post('acct/:id/orders')
  @ProtocolOperation('acme', 'orders')
  async orders(@Req() req: ParsedRequest, @Res() res: Response, @Param('id') id: string) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.accounts.orders(r, idOf(id, 'account')));
  }

  @Post('key-change')
  @ProtocolOperation('acme', 'keyChange')
  async keyChange(@Req() req: ParsedRequest, @Res() res: Response) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.accounts.keyChange(r));
  }

  @Post('revoke-cert')
  @ProtocolOperation('acme', 'revokeCert')
  async revoke(@Req() req: ParsedRequest, @Res() res: Response) {
    const r = this.http.request(req);
    await this.http.send(res, r.urls, await this.certificates.revoke(r));
  }
}
