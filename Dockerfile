# syntax=docker/dockerfile:1
#
# damone: a static binary on distroless, run as uid/gid 65532.
#
#   make image                       # docker build with VERSION from the VERSION file (scripts/version)
#   docker build --build-arg VERSION=v1.2.3 -t damone:v1.2.3 .
#
# The build stage runs `make build`, the same target developers and CI use,
# so the image holds the binary `make build` makes: CGO_ENABLED=0, -trimpath,
# and the version stamped with -ldflags -X main.version (`damone version`).

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so a source change does not fetch them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN make build VERSION="${VERSION}" BIN=/out/damone
# The endgame tables of up to 4 pieces, built once with the image (about 90 s
# of CPU, 66 MB) and read by every pod from this read-only layer: the
# manifests set DAMONE_EGTB_DIR=/egtb (docs/deploy.md, Endgame tables).
RUN /out/damone egtb build --pieces 4 --threads 2 --out /out/egtb && /out/damone egtb verify --quiet /out/egtb

# Distroless static, nonroot tag, pinned by digest: no shell, no package
# manager, CA certificates and /etc/passwd only. The digest is the one that
# public Dockerfiles pinned for gcr.io/distroless/static-debian12:nonroot in
# August 2026. To refresh it (and see what it points at today), run
#   crane digest gcr.io/distroless/static-debian12:nonroot
# or `docker buildx imagetools inspect` on the same reference, and replace
# the sha256 below.
FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
COPY --from=build /out/damone /damone
COPY --from=build /out/egtb /egtb
# The version the binary prints (`damone version`), as the image's label;
# `make image` passes VERSION from the VERSION file (docs/releases.md).
ARG VERSION=dev
LABEL org.opencontainers.image.version="${VERSION}"
# Numeric, so Kubernetes can verify runAsNonRoot without reading /etc/passwd;
# k8s/base sets the same runAsUser and runAsGroup.
USER 65532:65532
EXPOSE 9090 8080 9102
ENTRYPOINT ["/damone"]
CMD ["serve"]
