# The Sluice container image, built from a clone of the repository:
#   docker build -t sluice .                                  (or docker buildx build --platform linux/arm64 …)
# The build stage does what a fresh clone needs (npm ci brings Bun as a dev dependency; the build writes
# the release binaries for every platform, Bun cross-compiling), on the builder's own platform; the image
# is the release binary for the target platform on a slim base, as a non-root user, with the data
# directory on a volume. Configuration is by the same environment variables as outside a container, e.g.
#   docker run -e CONNECT_BOOTSTRAP_SERVERS=kafka:9092 -e SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS=kafka:9092 sluice
FROM --platform=$BUILDPLATFORM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The commit `sluice --version` reports (.git stays out of the build context): --build-arg COMMIT=$(git rev-parse --short=12 HEAD)
ARG COMMIT=unknown
RUN SLUICE_COMMIT=${COMMIT} npx bun build.ts
# Docker's architecture names (TARGETARCH) are amd64 and arm64; Bun's release names x64 and arm64.
ARG TARGETARCH
RUN cp dist/release/sluice-*-linux-$(echo ${TARGETARCH} | sed s/amd64/x64/) sluice

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /var/lib/sluice --create-home sluice
COPY --from=build /src/sluice /usr/local/bin/sluice
USER sluice
WORKDIR /var/lib/sluice
VOLUME ["/var/lib/sluice"]
ENV SCHEMA_REGISTRY_LISTENERS=http://0.0.0.0:8081 \
    CONNECT_LISTENERS=http://0.0.0.0:8083 \
    SCHEMA_REGISTRY_DATA_DIR=/var/lib/sluice/data \
    CONNECT_DATA_DIR=/var/lib/sluice/data \
    SLUICE_HEALTH_DIR=/var/lib/sluice/health
EXPOSE 8081 8083
# The services the container's command runs record where they answer in SLUICE_HEALTH_DIR; the check asks those.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s CMD ["sluice", "healthcheck"]
ENTRYPOINT ["sluice"]
CMD ["dev"]
