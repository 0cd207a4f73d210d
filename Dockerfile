# The headless watcher as a container image: a static binary (CGO_ENABLED=0) on distroless/static, run as its
# non-root user. Settings come from the environment (REDLOCK_TUI_*, docs/headless.md), for example:
#
#   docker build -t redlock-tui --build-arg VERSION=v1.2.3 .
#   docker run -p 9379:9379 -e REDLOCK_TUI_MASTERS=10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379 redlock-tui
#
# deploy/deploy_test.go checks this file's shape; CI builds the same static binary.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
ARG REVISION=""
ARG BUILD_DATE=""
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} \
      -X github.com/prometheus/common/version.Revision=${REVISION} \
      -X github.com/prometheus/common/version.BuildDate=${BUILD_DATE}" \
    -o /out/redlock-tui .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/redlock-tui /usr/local/bin/redlock-tui
USER nonroot:nonroot
ENV REDLOCK_TUI_HEADLESS=true \
    REDLOCK_TUI_METRICS=:9379
EXPOSE 9379
ENTRYPOINT ["/usr/local/bin/redlock-tui"]
