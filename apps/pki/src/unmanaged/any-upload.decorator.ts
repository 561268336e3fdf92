import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { loadUpload, ParsedRequest, uploadedFile, uploadedFiles } from '@app/http';

/** The part `File` (any case), else the first uploaded file: clients name this part differently. */
export const AnyUpload = createParamDecorator((_: unknown, ctx: ExecutionContext): Express.Multer.File | undefined => {
  const req = ctx.switchToHttp().getRequest<ParsedRequest>();
  const first = uploadedFiles(req)[0];
  return uploadedFile(req, 'File') ?? (first && loadUpload(first));
});
