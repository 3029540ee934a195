# syntax=docker/dockerfile:1
# Kazma in a container: `docker build -t kazma .` at the repository root. Images are not built on this
# project's CI machines (no Docker daemon there), so this file is checked by tests/deploy/deploy-files.test.ts
# (its commands are the documented ones), not by a build. How to run it, and what the shell sandbox needs
# inside a container: docs/operations.md, "Deploying".

# --- build: every dependency (esbuild is a devDependency), then `npm run build` bundles src/ into dist/ ---
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
RUN npm run build

# --- runtime: production dependencies only, the bundle, and what it reads beside it ---
FROM node:20-slim AS runtime
# bubblewrap: the shell tool's sandbox (util-linux's prlimit and setpriv, its limits, are in the base image);
# git and ca-certificates: the shell tool's git and Agent Skill installs; redis-server: the private Redis a
# lone container starts when no redis.url is set (compose sets REDIS_URL); tini: PID 1, reaps and signals.
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap ca-certificates git redis-server tini \
  && rm -rf /var/lib/apt/lists/*
# A user of its own (not root: the sandbox then uses a user namespace and needs no setpriv), owning only
# /var/lib/kazma (data_dir and the workspace); the code in /app stays root's, read-only to Kazma.
RUN groupadd --system kazma \
  && useradd --system --gid kazma --home-dir /home/kazma --create-home --shell /usr/sbin/nologin kazma \
  && mkdir -p /var/lib/kazma/data /var/lib/kazma/workspace \
  && chown -R kazma:kazma /var/lib/kazma
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
COPY tsconfig.json ./
# src/ holds the worker files the bundle starts (the HTML and document readers) and lets bin/kazma.js fall
# back to the source; the build stamp is dated after every copy so bin/kazma.js runs dist/, as built here.
COPY src ./src
RUN touch dist/.build-stamp \
  && node --input-type=module -e "import { distState } from '/app/bin/dist-state.js'; const s = distState(); if (s.state !== 'fresh') { console.error('dist/ is not current:', s); process.exit(1); }" \
  && ln -s /app/bin/kazma.js /usr/local/bin/kazma
# The configuration the image starts with: data_dir and the workspace under the volume, HTTP on every
# interface of the container. Mount your own over it (compose does), or set KAZMA_CONFIG to another file.
COPY deploy/kazma.yaml /etc/kazma/kazma.yaml
ENV KAZMA_CONFIG=/etc/kazma/kazma.yaml
VOLUME ["/var/lib/kazma"]
USER kazma
EXPOSE 8787
# /healthz answers 200 while the process lives (/readyz also asks the database and Redis). The port is
# http.port's default; change both together. The slim image has no curl: Node's fetch asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "kazma"]
CMD ["start"]
