# Livery container image. Build stage: official Swift 6 image; runtime: slim Debian with only runtime libraries.
FROM swift:6.1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends zlib1g-dev libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --static-swift-stdlib --product livery \
    && install -D "$(swift build -c release --show-bin-path)/livery" /out/livery

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends zlib1g libssl3 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin livery \
    && mkdir -p /data && chown livery /data
COPY --from=build /out/livery /usr/local/bin/livery
COPY skins /srv/livery/skins
ENV LIVERY_HOST=0.0.0.0 LIVERY_PORT=8080 LIVERY_DATA_DIR=/data LIVERY_SKINS_DIR=/srv/livery/skins
USER livery
VOLUME ["/data"]
EXPOSE 8080
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/livery"]
CMD ["serve"]
