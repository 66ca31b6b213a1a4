# syntax=docker/dockerfile:1
# One file, one image per service: `docker build --target <operator|ratelimit|gateway|inbox|inbox-worker>`.
# hack/build-images.sh builds them all with one tag. Every image runs a bundle from hack/build-dist.ts on
# Node 20 (Debian slim), as the unprivileged `node` user (uid 1000), with production dependencies only.

ARG NODE_IMAGE=node:20-bookworm-slim

# Everything, to bundle the services and build the inspector.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run build:dist -- /src/dist

# Production dependencies of every workspace; the workspace links they leave are not used by the bundles.
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/lib lib
COPY --from=build /src/services services
COPY --from=build /src/operator operator
COPY --from=build /src/bench bench
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf node_modules/@portcullis

FROM ${NODE_IMAGE} AS base
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.source="https://github.com/portcullis-dev/portcullis" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.vendor="Portcullis"
ENV NODE_ENV=production \
    LOG_FORMAT=json \
    PORTCULLIS_PROTO_DIR=/app/protos
WORKDIR /app
COPY --from=deps /src/node_modules node_modules
COPY --from=build /src/protos protos
COPY --from=build /src/dist/package.json dist/package.json
USER node

FROM base AS operator
LABEL org.opencontainers.image.title="portcullis-operator" \
      org.opencontainers.image.description="Reconciles RateLimitConfig, ApiRoute and InboxEndpoint and serves them over xDS"
COPY --from=build /src/dist/operator.mjs /src/dist/operator.mjs.map dist/
EXPOSE 18000 8090 9090
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8090/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/operator.mjs"]

FROM base AS ratelimit
LABEL org.opencontainers.image.title="portcullis-ratelimit" \
      org.opencontainers.image.description="Envoy-compatible rate-limit service (gRPC RLS v3, /json)"
COPY --from=build /src/dist/ratelimit.mjs /src/dist/ratelimit.mjs.map dist/
# for `kubectl exec … -- node dist/ratelimit-client.mjs -dial_string localhost:8081 -domain d -descriptors k=v`
COPY --from=build /src/dist/ratelimit-client.mjs /src/dist/ratelimit-client.mjs.map dist/
EXPOSE 8080 8081 6070
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthcheck').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/ratelimit.mjs"]

FROM base AS gateway
LABEL org.opencontainers.image.title="portcullis-gateway" \
      org.opencontainers.image.description="REST routing with auth and per-route rate limits"
COPY --from=build /src/dist/gateway.mjs /src/dist/gateway.mjs.map dist/
EXPOSE 8088
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8088/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/gateway.mjs"]

FROM base AS inbox
LABEL org.opencontainers.image.title="portcullis-inbox" \
      org.opencontainers.image.description="Webhook inbox: receive URLs, web inspector, API, live stream"
ENV INBOX_WEB_DIR=/app/dist/inbox-web
COPY --from=build /src/dist/inbox.mjs /src/dist/inbox.mjs.map dist/
COPY --from=build /src/dist/inbox-web dist/inbox-web
EXPOSE 8089
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8089/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/inbox.mjs"]

FROM base AS inbox-worker
LABEL org.opencontainers.image.title="portcullis-inbox-worker" \
      org.opencontainers.image.description="Forwards inbox captures to their targets"
COPY --from=build /src/dist/inbox-worker.mjs /src/dist/inbox-worker.mjs.map dist/
# no HTTP port: the process is the health (Kubernetes restarts it when it exits)
CMD ["node", "--enable-source-maps", "dist/inbox-worker.mjs"]
