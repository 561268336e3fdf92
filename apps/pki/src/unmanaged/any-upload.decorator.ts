import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { loadUpload, ParsedRequest, readField, uploadedFile, uploadedFiles } from '@app/http';

/**
 * The part `File` (any case), else the first uploaded file: clients name this part differently
 * (KMP's `uploadedFile`). Without a file, KMP's `uploadedFile` parameter carrying the
 * filled-in list itself (text, or the JSON object in INPUT_DATA) stands for it.
 */
export const AnyUpload = createParamDecorator((_: unknown, ctx: ExecutionContext): Pick<Express.Multer.File, 'buffer'> | undefined => {
  const req = ctx.switchToHttp().getRequest<ParsedRequest>();
  const first = uploadedFiles(req)[0];
  const file = uploadedFile(req, 'File') ?? (first && loadUpload(first));
  if (file) return file;
  const value = readField(req, 'uploadedFile');
  if (typeof value === 'string') return { buffer: Buffer.from(value) };
  if (typeof value === 'object' && value !== null) return { buffer: Buffer.from(JSON.stringify(value)) };
  return undefined;
});
