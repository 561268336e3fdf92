import { DynamicModule, INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { join } from 'node:path';
import { AppConfig } from '@app/config';
import { Authenticator } from '@app/auth';
import { LeanRoutes, noStoreMiddleware, normalizePathMiddleware, processUploadRoot, requestBodyMiddleware } from '@app/http';
import { TlsMaterial } from './tls';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

export function logLevels(level: AppConfig['logLevel']): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/** A configured (not yet listening) Nest application for one service. */
export async function createApp(module: DynamicModule, config: AppConfig, tls?: TlsMaterial): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false,
    abortOnError: false,
    httpsOptions: tls ? { cert: tls.cert, key: tls.key } : undefined,
    logger: logLevels(config.logLevel),
  });
  const express = app.getHttpAdapter().getInstance();
  // Express's default ETag is a hash of the body: a fingerprint of the password it carries.
  express.set('etag', false);
  express.disable('x-powered-by');
  app.use(noStoreMiddleware);
  app.use(normalizePathMiddleware);
  const authenticator = app.get(Authenticator, { strict: false });
  app.use(
    requestBodyMiddleware({
      maxFileSize: config.maxFileSize,
      maxUploadBytes: config.maxUploadTotal,
      maxConcurrentUploads: config.maxConcurrentUploads,
      uploadDir: processUploadRoot(join(config.dataDir, 'uploads')),
      isKnownToken: (token) => authenticator.isKnownToken(token),
    }),
  );
  app.get(LeanRoutes).install(app.getHttpServer());
  return app;
}

