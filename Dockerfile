# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the dev dependencies.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies, the compiled server, and Valkey for the embedded FalkorDB
# (used only when TOKEN_STORE_URL is unset). Valkey 8 comes from Debian's bookworm-backports suite,
# whose source entry is derived from the image's own Debian source. falkordb.so links libgomp.so.1,
# which valkey-server does not pull in; tini is PID 1 so SIGTERM reaches the server.
FROM node:24-bookworm-slim
ARG VERSION=0.0.0
LABEL org.opencontainers.image.title="graphdb-server" \
      org.opencontainers.image.description="Browser and admin REST APIs for FalkorDB" \
      org.opencontainers.image.version="${VERSION}"
RUN awk 'BEGIN{RS="";ORS="\n\n"} /debian-security/ {next} {sub(/Suites:[^\n]*/, "Suites: bookworm-backports"); print; exit}' \
      /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/backports.sources \
 && apt-get update \
 && apt-get install -y --no-install-recommends -t bookworm-backports valkey-server libgomp1 tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
