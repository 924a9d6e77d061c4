# Livery container image.
#
# deploy/smoke-image.sh proves this file without a Docker engine (CI runs it): it reads this file, runs the build
# stage's `swift build` command, lays out the runtime stage's folders in a minimal Debian root holding exactly the
# packages installed below, checks with ldd that the binary needs nothing else, and runs the server there as the
# image would. Keep the build command on the `RUN swift build` line and the runtime packages on the
# `apt-get install` line of the runtime stage: the script reads them from there.

# ---- Build: the official Swift 6 image (the toolchain CI uses), static Swift runtime.
FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends zlib1g-dev libssl-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib --product livery \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/livery" /out/livery

# ---- Runtime: slim Debian with only the libraries the binary links (zlib, OpenSSL, libpq for the PostgreSQL
# store), CA certificates and time zone data (release windows name zones such as Asia/Shanghai).
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends zlib1g libssl3 libpq5 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin livery \
    && mkdir -p /data \
    && chown livery:livery /data
COPY --from=build /out/livery /usr/local/bin/livery
COPY skins /srv/livery/skins
ENV LIVERY_HOST=0.0.0.0 LIVERY_PORT=8080 LIVERY_DATA_DIR=/data LIVERY_SKINS_DIR=/srv/livery/skins LIVERY_LOG_FORMAT=json
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/livery", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/livery"]
CMD ["serve"]
