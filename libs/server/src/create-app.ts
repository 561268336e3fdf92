import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { join } from 'node:path';
import { AppConfig } from '@app/config';
import { Authenticator } from '@app/auth';
import { LeanRoutes, noStoreMiddleware, normalizePathMiddleware, pathEncodingMiddleware, processUploadRoot, requestBodyMiddleware } from '@app/http';
import { createLogger, Drain, MetricsService, RequestObserver } from '@app/observability';
import { TlsMaterial } from './tls';

/** A configured (not yet listening) Nest application for one service. */
export async function createApp(module: DynamicModule, config: AppConfig, tls?: TlsMaterial): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false,
    abortOnError: false,
    httpsOptions: tls ? { cert: tls.cert, key: tls.key } : undefined,
    logger: createLogger(config.logFormat, config.logLevel),
  });
  const express = app.getHttpAdapter().getInstance();
  // Express's default ETag is a hash of the body: a fingerprint of the password it carries.
  express.set('etag', false);
  express.disable('x-powered-by');
  app.use(noStoreMiddleware);
  app.use(pathEncodingMiddleware);
  app.use(normalizePathMiddleware);
  const authenticator = app.get(Authenticator, { strict: false });
  app.use(
    requestBodyMiddleware({
      maxFileSize: config.maxFileSize,
      maxUploadBytes: config.maxUploadTotal,
      maxConcurrentUploads: config.maxConcurrentUploads,
      uploadDir: processUploadRoot(join(config.dataDir, 'uploads')),
      admissible: (token, req) => authenticator.isAdmissible(token, req),
    }),
  );
  app.get(LeanRoutes).install(app.getHttpServer());
  // Installed last, so it sees every request first (the lean routes included).
  new RequestObserver(app, app.get(MetricsService), app.get(Drain), config.logFormat, config.logLevel).install(app.getHttpServer());
  return app;
}

