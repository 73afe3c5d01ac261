# The Sluice container image: the release binary on a slim base, as a non-root user, with the data
# directory on a volume. Build after `bun run build` (which writes dist/release):
#   docker build --build-arg VERSION=0.1.0 -t sluice .
# Configuration is by the same environment variables as outside a container, e.g.
#   docker run -e CONNECT_BOOTSTRAP_SERVERS=kafka:9092 -e SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS=kafka:9092 sluice
FROM debian:bookworm-slim
ARG VERSION=0.1.0
RUN useradd --system --uid 10001 --home-dir /var/lib/sluice --create-home sluice
COPY dist/release/sluice-${VERSION}-linux-x64 /usr/local/bin/sluice
USER sluice
WORKDIR /var/lib/sluice
VOLUME ["/var/lib/sluice"]
ENV SCHEMA_REGISTRY_LISTENERS=http://0.0.0.0:8081 \
    CONNECT_LISTENERS=http://0.0.0.0:8083 \
    SCHEMA_REGISTRY_DATA_DIR=/var/lib/sluice/data \
    CONNECT_DATA_DIR=/var/lib/sluice/data
EXPOSE 8081 8083
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s CMD ["sluice", "healthcheck"]
ENTRYPOINT ["sluice"]
CMD ["dev"]
