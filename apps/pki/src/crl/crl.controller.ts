import { Controller, Get, Param } from '@nestjs/common';
import { AppError, FileReply, Public } from '@app/http';
import { CrlService } from '@app/pki/cert-service';

/** Public, unauthenticated: the CRL URL put in every certificate our CAs issue, and the CA certificates. */
@Controller()
export class CrlController {
  constructor(private readonly crls: CrlService) {}

  @Get('crl/:file')
  @Public()
  async crl(@Param('file') file: string) {
    const { der, name } = await this.crls.current(stripSuffix(file, ['.crl']));
    return new FileReply(der, `${name}.crl`, 'application/pkix-crl');
  }

  @Get('ca/:file')
  @Public()
  async caCertificate(@Param('file') file: string) {
    const { pem, name } = await this.crls.caCertificate(stripSuffix(file, ['.crt', '.pem']));
    return new FileReply(Buffer.from(pem), `${name}.crt`, 'application/x-pem-file');
  }
}

function stripSuffix(file: string, suffixes: string[]): string {
  const suffix = suffixes.find((s) => file.toLowerCase().endsWith(s));
  if (!suffix) throw AppError.notFound(`No such file ${file}; expected <ca>${suffixes[0]}`);
  return file.slice(0, -suffix.length);
}
