import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { OCSPResponseStatus } from '@peculiar/asn1-ocsp';
import { Response } from 'express';
import { AppError } from '@app/http';
import { ocspErrorResponse } from '@app/pki/certs';

/**
 * A request refused before the responder sees it (a path that does not decode, a NUL in the
 * CA name) is still answered in OCSP: a DER malformedRequest, which is what an OCSP client
 * understands, not the JSON envelope of the REST interface. Faults still reach the global filter.
 */
@Catch(AppError)
export class OcspRefusalFilter implements ExceptionFilter {
  catch(_error: AppError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    res.status(200).setHeader('Content-Type', 'application/ocsp-response');
    res.end(ocspErrorResponse(OCSPResponseStatus.malformedRequest));
  }
}
