# syntax=docker/dockerfile:1
#
# listenerset-webhook: the server's static binary on an empty,
# distroless-style base that runs as a non-root user (65532, as the chart's
# securityContext), and the kubectl plugin's (cmd/kubectl-listenerset), which
# the chart's audit CronJob runs as /kubectl-listenerset audit.
#
#   docker build -t <your-registry>/listenerset-webhook:<tag> .
#
# The build stage uses the official Go image of the version go.mod asks for;
# override with --build-arg GO_VERSION=... . Nothing but the binaries end up
# in the final image, with the LICENSE: no shell, no package manager, no libc.

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Dependencies first, so that a code change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS TARGETARCH
# What --version prints (docs/release.md): --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse HEAD).
ARG VERSION COMMIT
# The server and the kubectl plugin, with the same flags.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    for cmd in listenerset-webhook kubectl-listenerset; do \
      CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
      go build -trimpath -ldflags="-s -w -X github.com/airlock/listenerset-webhook/version.Version=${VERSION} -X github.com/airlock/listenerset-webhook/version.Commit=${COMMIT}" \
        -o /out/$cmd ./cmd/$cmd || exit 1; \
    done
# A passwd and group entry for the non-root user, so tools that look up the
# user name find one.
RUN mkdir -p /out/etc && \
    echo 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' > /out/etc/passwd && \
    echo 'nonroot:x:65532:' > /out/etc/group

FROM scratch
COPY --from=build /out/etc/passwd /out/etc/group /etc/
COPY --from=build /out/listenerset-webhook /listenerset-webhook
COPY --from=build /out/kubectl-listenerset /kubectl-listenerset
# The license (Apache-2.0) the binaries are distributed under.
COPY LICENSE /LICENSE
USER 65532:65532
EXPOSE 9443 8080 8081
ENTRYPOINT ["/listenerset-webhook"]
# The server serves with or without "serve"; it stays for the chart's args
# and for images run by hand as before.
CMD ["serve"]
