#!/usr/bin/env bash
# Build MinIO, the S3-compatible object store the object-store tests start (tests/s3_fixtures.py,
# pipelines/framework/minio.py), once, into .engines/minio-$MINIO_VERSION/minio (ignored by git).
#
#   tools/minio.sh            build it when missing (Go module proxy; 6.5-11 min on 2 busy cores, 150 MB binary;
#                             copied instead from this machine's cache when another checkout built it)
#   tools/minio.sh --check    only report; exit 1 when it is missing
#   tools/minio.sh --print    print the binary's path
#
# Licence: MinIO is AGPL-3.0 (https://github.com/minio/minio/blob/master/LICENSE). The project uses it
# unmodified, built from its published source, as a separate server process that the tests start and stop;
# it is not linked with, copied into or shipped with the project or its worker image.
#
# The version is the one the Go module proxy serves for github.com/minio/minio (a pseudo-version naming the
# source's commit of 2026-02-12; the proxy these machines reach answers no RELEASE.* tag). The checksum
# database (sum.golang.org) cannot be reached from here, hence GOSUMDB=off: the proxy's zip is trusted as is.
# REWRITE_MINE_ENGINES=DIR puts it elsewhere (the fixture reads the same variable); MINIO_BIN=PATH names a
# binary built or downloaded some other way and skips the build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
engines="${REWRITE_MINE_ENGINES:-$root/.engines}"
# Across checkouts of one machine (CI's fresh clones): the binary is kept here too, and Go keeps its module
# and build caches (~/go/pkg/mod, ~/.cache/go-build). Never relied on: missing, it is built.
machine_cache="${REWRITE_MINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewrite-mining}"
dest="$engines/minio-$MINIO_VERSION"
bin="${MINIO_BIN:-$dest/minio}"

if [ "${1:-}" = "--print" ]; then
  printf '%s\n' "$bin"
  exit 0
fi
[ -x "$bin" ] && exit 0
if [ "${1:-}" = "--check" ]; then
  echo "rewrite-mining: MinIO not built: $bin (run: tools/minio.sh)" >&2
  exit 1
fi
if [ -n "${MINIO_BIN:-}" ]; then
  echo "rewrite-mining: MINIO_BIN=$MINIO_BIN is not an executable file" >&2
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "rewrite-mining: 'go' is needed to build MinIO, the S3 store the object-store tests start" >&2
  echo "(Go 1.24 or newer: https://go.dev/dl/, or on Debian/Ubuntu: sudo apt-get install -y golang-go when" >&2
  echo "its version is 1.24+), or MINIO_BIN=PATH naming a minio binary. Without it, run the tests but those:" >&2
  echo "  .venv/bin/python -m pytest -m 'not s3'" >&2
  exit 1
fi

t0=$(date +%s)
tmp="$dest.partial"
rm -rf "$tmp"
mkdir -p "$tmp"
# A binary this machine built before, for another checkout (a fresh clone in CI): copied, once it runs.
cached="$machine_cache/minio-$MINIO_VERSION/minio"
if [ -x "$cached" ] && "$cached" --version >/dev/null 2>&1; then
  cp "$cached" "$tmp/minio"
  rm -rf "$dest"
  mv "$tmp" "$dest"
  echo "rewrite-mining: MinIO $MINIO_VERSION copied from this machine's cache $cached" >&2
  exit 0
fi
echo "rewrite-mining: building MinIO $MINIO_VERSION (Go module proxy; several minutes, once)" >&2
# CGO_ENABLED=0 as MinIO's own release builds; GOFLAGS=-mod=mod lets go resolve the module's own go.sum.
GOBIN="$tmp" CGO_ENABLED=0 GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local \
  go install -trimpath "github.com/minio/minio@$MINIO_VERSION"
rm -rf "$dest"
mv "$tmp" "$dest"
# Kept for the next checkout on this machine (best effort: a read-only home only costs the next a build).
if mkdir -p "$machine_cache/minio-$MINIO_VERSION" 2>/dev/null \
    && cp "$dest/minio" "$cached.partial" 2>/dev/null; then
  mv "$cached.partial" "$cached"
fi
echo "rewrite-mining: MinIO ready: $dest/minio ($(( $(date +%s) - t0 )) s)" >&2
