# syntax=docker/dockerfile:1
#
# arena validator image: a static binary on distroless, running as non-root.
#
#   docker build -t arena .
#   docker run -d --name arena \
#     -v arena-data:/data \
#     -v /etc/arena:/etc/arena:ro \
#     --env-file /etc/arena/arena.env \
#     -p 127.0.0.1:9100:9100 \
#     arena
#
# See docs/operations.md ("Docker"). No key, password or config is baked
# into the image: mount them at run time.

# ---- build stage: compile a static, stripped binary ----
FROM golang:1.26 AS build
WORKDIR /src

# Download modules first so this layer is cached until go.mod/go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download

COPY . .
# scripts/build.sh: a static binary (CGO_ENABLED=0) without local paths
# (-trimpath), symbols or DWARF (-s -w), stamped with the version. The
# build context has no .git, so pass the stamp as build arguments:
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg COMMIT_TIME=$(git log -1 --format=%cI) -t arena .
ARG VERSION="" REVISION="" COMMIT_TIME=""
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    VERSION="$VERSION" REVISION="$REVISION" COMMIT_TIME="$COMMIT_TIME" sh scripts/build.sh /out/arena \
 && mkdir -p /out/data

# ---- runtime stage: no shell, no package manager, no root ----
FROM gcr.io/distroless/static-debian12:nonroot

COPY --from=build /out/arena /arena
# /data must exist and belong to nonroot (65532) so a fresh named volume
# inherits that ownership.
COPY --from=build --chown=65532:65532 /out/data /data

# The database lives on the volume. ARENA_DATA_DIR overrides data_dir from
# the config file; keep it pointing at the volume.
ENV ARENA_DATA_DIR=/data
# Listen on all of the container's interfaces so /metrics, /livez and
# /readyz can be published (publish to 127.0.0.1 on the host unless
# Prometheus scrapes from elsewhere). Overrides metrics.listen. That port
# serves nothing else: the JSON API (api.listen) stays on the container's
# loopback unless api.allow_remote and api.token_file say otherwise.
ENV ARENA_METRICS_LISTEN=:9100
WORKDIR /data
VOLUME /data
EXPOSE 9100

# distroless's nonroot user (uid/gid 65532).
USER nonroot:nonroot

ENTRYPOINT ["/arena"]
CMD ["run", "--config", "/etc/arena/arena.yaml"]
