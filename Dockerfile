# syntax=docker/dockerfile:1
# Production image: one image, several processes (see docker-compose.yml):
#   node dist/api/main.js               API (default)
#   node dist/activities/worker.js      Temporal worker (loads dist/workflow-bundle.js)
#   node dist/db/migrate-cli.js         database migrations, one-shot
#   node dist/scripts/prepare-temporal.js  search attributes + retention, one-shot
# Configuration comes only from environment variables (lib/config.ts).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Node 20 ships npm 10, which ignores package.json "allowScripts" and would run every install
# script. --ignore-scripts keeps npm 11's behaviour for what is denied there (protobufjs,
# @swc/core, @scarf/scarf, esbuild all load without theirs); the one approved script belongs to
# embedded-postgres, a dev/test-only dependency the build never starts.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build \
 && test -f dist/workflow-bundle.js \
 && test -f dist/scripts/prepare-temporal.js

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
# Files stay root-owned and read-only for the process; nothing is written at run time.
USER node
EXPOSE 8080
CMD ["node", "--max-old-space-size=160", "--import", "./dist/lib/tracing-preload.js", "dist/api/main.js"]
