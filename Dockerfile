# etl in a container: the release archive `make dist` builds, unpacked on a slim Debian
# that has the C libraries it links (docs/deploy.md).
#
#   docker build -t registry.example.com/etl:0.5.0 .
#   docker run --rm -v "$PWD:/data" registry.example.com/etl:0.5.0 run /data/pipeline.json
#
# The build stage must be a Debian 12 (bookworm) image, like the runtime stage: the binary
# needs the glibc it was linked against, or a later one.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
# The C libraries' headers, and the archives of libxml2, ICU and lzma that are linked in.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       make libsqlite3-dev libzstd-dev zlib1g-dev libxml2-dev libicu-dev liblzma-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make dist \
    && mkdir /install \
    && tar -C /install --strip-components=1 -xzf dist/etl-*-linux-*.tar.gz

FROM ${RUNTIME_IMAGE}
# What `ldd etl` lists besides libc and libm: SQLite, zstd, zlib, the C++ runtime.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       libsqlite3-0 libzstd1 zlib1g libstdc++6 libgcc-s1 \
    && rm -rf /var/lib/apt/lists/*
# bin/etl, share/man/man1/etl.1 and the completions, as `make install PREFIX=/usr/local` lays them out.
COPY --from=build /install/ /usr/local/
RUN etl --version
ENTRYPOINT ["/usr/local/bin/etl"]
CMD ["--help"]
