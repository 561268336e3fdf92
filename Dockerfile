# One image for both services: `node dist/apps/vault/src/main.js` or `.../pki/...`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps apps
COPY libs libs
COPY migrations migrations
COPY scripts scripts
COPY bench bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends openssh-client ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data LOG_FORMAT=json BIND_ADDRESS=0.0.0.0
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
# `npm run admin -- <command>` as on a host, and `admin <command>` for `docker compose exec`.
COPY scripts/ensure-built.js scripts/healthcheck.js scripts/
RUN printf '#!/bin/sh\nexec node /app/dist/scripts/admin.js "$@"\n' > /usr/local/bin/admin && chmod 755 /usr/local/bin/admin \
  && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 7272 6565
CMD ["node", "dist/apps/all/src/main.js"]
