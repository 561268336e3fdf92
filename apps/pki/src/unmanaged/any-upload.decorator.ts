import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ParsedRequest, uploadedFile } from '@app/http';

/** The part `File` (any case), else the first uploaded file: clients name this part differently. */
export const AnyUpload = createParamDecorator((_: unknown, ctx: ExecutionContext): Express.Multer.File | undefined => {
  const req = ctx.switchToHttp().getRequest<ParsedRequest>();
  const files = Array.isArray(req.files) ? req.files : Object.values(req.files ?? {}).flat();
  return uploadedFile(req, 'File') ?? files[0];
});
