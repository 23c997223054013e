# The reference server's container image: the server's single-file executable (Node.js and the
# server in one file) and the C and C++ runtime libraries it links, nothing else: no shell, no
# package manager. One image per platform, linux/amd64 and linux/arm64.
#
# The build context is a folder that `npm run release` lays out from the release's Linux
# executables and the Debian packages of this machine (tools/build-reference-server-image.js, whose
# pinned BuildKit builds the image; the release workflow's docker buildx builds it too), per platform:
#   <arch>/analytics-reference-server   the executable
#   <arch>/lib/                         libc, libm, libdl, libpthread, libstdc++, libgcc_s, libatomic and the
#                                       dynamic loader, at /lib/<triplet>/
#   <arch>/loader/                      the link at the path the executable names for its loader
#   common/etc/passwd, common/etc/group the user analytics (65532:65532)
#   common/tmp/                         /tmp (1777)
#   empty/                              an empty folder: the volume /data
FROM scratch
ARG TARGETARCH

COPY ${TARGETARCH}/lib/ /lib/
COPY ${TARGETARCH}/loader/ /
COPY common/ /
COPY --chown=65532:65532 empty/ /data/
COPY ${TARGETARCH}/analytics-reference-server /usr/local/bin/analytics-reference-server

ENV PATH=/usr/local/bin
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 8080
STOPSIGNAL SIGTERM

# Exec form: the image has no shell. Docker (and so GitHub Actions' `services:`) waits for
# `healthy` before a job's steps start; the first check runs one interval after the start.
HEALTHCHECK --interval=2s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/analytics-reference-server", "ready"]

ENTRYPOINT ["/usr/local/bin/analytics-reference-server"]
# Every interface, port 8080, the state in the volume, a key for the user `ci` (ANALYTICS_API_KEY,
# or one minted once per volume). A `run` that gives arguments replaces these.
CMD ["--host", "0.0.0.0", "--port", "8080", "--state", "/data/state.json", "--key-user", "ci"]

# From package.json and the build (tools/build-reference-server-image.js passes them).
ARG VERSION
ARG REVISION
ARG DESCRIPTION
ARG SOURCE
ARG LICENSES
ARG LABEL_NAMESPACE
ARG DEBIAN_PACKAGES
LABEL org.opencontainers.image.title="analytics-reference-server" \
      org.opencontainers.image.description="${DESCRIPTION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.url="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="${LICENSES}" \
      ${LABEL_NAMESPACE}.debian-packages="${DEBIAN_PACKAGES}"
