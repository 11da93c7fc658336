#!/usr/bin/env bash
# Build the worker image (Dockerfile) on a machine that reaches no container registry: `make image`.
#
#   tools/build_image.sh [--tag NAME:TAG] [--extras EXTRAS] [--base beam]
#
# Steps, each cached under .engines/image/ (rebuilt when missing; the cache is never needed):
#   1. a Debian base image: `debootstrap --variant=minbase bookworm` (python3 3.11, the project's Python)
#      from the Debian mirror apt uses here, imported with `docker import` as rewrite-mining-base:bookworm;
#   2. Beam's boot program, the SDK container's entrypoint, built from Beam's Go module at the Beam version
#      constraints.txt pins (`go install github.com/apache/beam/sdks/v2/python/container@vX.Y.Z`);
#   3. a wheelhouse: `pip wheel` of the project with constraints.txt and EXTRAS (the pip cache of `make test`
#      serves most of it), so the image build fetches nothing from PyPI;
#   4. the models (`python -m miners.nlp.ct2 bake`: MiniLM-L6 and its CTranslate2 conversion, from this
#      machine's venv) into docker/models/ of the context;
#   5. `docker build` of the Dockerfile with BASE_IMAGE=rewrite-mining-base:bookworm, STANZA_MODELS=0, and a
#      build context holding the tracked files plus docker/boot, docker/wheelhouse/ and docker/models/.
# An image is labelled with a hash of what goes into it (the project's files, the pins, the extras, the base
# and the models): when the tag already names an image of the same content, nothing is built (a second
# `make image`, or CI on a machine that keeps Docker's images, costs seconds). --force builds anyway.
# --base beam builds the Dockerfile as a user with a registry would (Beam's SDK image from Docker Hub, wheels
# from PyPI): only where Docker Hub can be reached.
# Default: EXTRAS "image", tag rewrite-mining:<version>: every job and `all`, Beam's S3 filesystem, on CPU with no
# torch and so no CUDA library (ParaSCI's and SimSim's encoders run on CTranslate2; stanza, which needs torch,
# is left out). `--extras aws` builds rewrite-mining:<version>-slim (Discovery, WikiSplit, DiscoFuse with spaCy).
# Needs root (debootstrap) and a running Docker engine (tools/docker_engine.sh starts Debian's).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
extras="image"
tag=""
base="debian"
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --extras) extras="$2"; shift 2 ;;
    --base) base="$2"; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
version="$(sed -n 's/^VERSION = "\(.*\)"/\1/p' setup.py)"
if [ -z "$tag" ]; then
  case "$extras" in
    image) tag="rewrite-mining:${version}" ;;
    ""|aws) tag="rewrite-mining:${version}-slim" ;;
    *) tag="rewrite-mining:${version}-${extras//,/-}" ;;
  esac
fi
beam="$(sed -n 's/^apache-beam==//p' constraints.txt)"
cache="${REWRITE_MINE_ENGINES:-$root/.engines}/image"
mkdir -p "$cache"
python="${PYTHON:-$root/.venv/bin/python}"
say() { echo "build_image: $*" >&2; }
t0=$(date +%s)

if ! docker info >/dev/null 2>&1; then
  say "no Docker engine answers (docker info failed): start one with tools/docker_engine.sh (as root)"
  exit 1
fi

# A build from nothing holds about 10 GB at its peak (the build stage's venv and wheels, the image's copy
# of the venv): say so before it starts rather than after "no space left on device" (CI's disk is shared).
docker_root="$(docker info -f '{{.DockerRootDir}}' 2>/dev/null || echo /var/lib/docker)"
free_gb=$(( $(df -Pk "$docker_root" 2>/dev/null | awk 'NR==2 {print $4}' || echo 0) / 1048576 ))
if [ "$free_gb" -lt 10 ]; then
  say "warning: $free_gb GB free in Docker's data root ($docker_root); a build with nothing cached needs about 10 GB (docker image prune frees unused images)"
fi

context="$(mktemp -d "$cache/context.XXXXXX")"
trap 'rm -rf "$context"' EXIT
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} cp --parents {} "$context/" 2>/dev/null || true
# (files deleted in the working tree but still tracked are skipped by cp's error, on purpose)

# The models, converted on this machine (the image then computes the bits the local runner computes).
if [ "$extras" = "image" ] || [[ ",$extras," == *",encoders,"* ]] || [[ ",$extras," == *",all,"* ]]; then
  s=$(date +%s)
  "$python" -m miners.nlp.ct2 bake "$context/docker/models" >/dev/null \
    || { say "baking the models failed (python -m miners.nlp.ct2 bake; the venv needs '.[bertscore]')"; exit 1; }
  say "models baked in $(( $(date +%s) - s )) s ($(du -sh "$context/docker/models" | cut -f1))"
fi

# What goes into the image, as one hash: the files the Dockerfile copies (the project's code, samples and tools,
# the pins, the models), the extras and the base; not the tests or the docs, so that CI on a machine that keeps
# Docker's images builds again only when the image would change. The same content under the same tag is not
# built again.
content="$( (cd "$context" && find Dockerfile .dockerignore constraints.txt setup.py docker tools schemas \
  miners transforms pipelines samples -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum
  echo "extras=$extras base=$base beam=$beam") | sha256sum | cut -c1-16)"
if [ "$force" = 0 ] && [ "$(docker image inspect -f '{{ index .Config.Labels "rewrite-mining.content" }}' "$tag" 2>/dev/null || true)" = "$content" ]; then
  say "$tag is up to date (content $content): nothing to build ($(( $(date +%s) - t0 )) s)"
  echo "$tag"
  exit 0
fi

if [ "$base" = "debian" ]; then
  base_image="rewrite-mining-base:bookworm"
  if ! docker image inspect "$base_image" >/dev/null 2>&1; then
    tarball="$cache/debian-bookworm-minbase.tar"
    if [ ! -s "$tarball" ]; then
      command -v debootstrap >/dev/null || { say "debootstrap is missing: apt-get install debootstrap"; exit 1; }
      [ "$(id -u)" -eq 0 ] || { say "debootstrap needs root"; exit 1; }
      mirror="${DEBIAN_MIRROR:-$(grep -h -o -E '^(URIs:|deb) *https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | head -1 | grep -o -E 'https?://[^ ]+' || true)}"
      mirror="${mirror:-http://deb.debian.org/debian}"
      rootfs="$cache/rootfs.tmp"
      rm -rf "$rootfs"
      say "debootstrap bookworm from $mirror"
      s=$(date +%s)
      debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,passwd bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 \
        || { say "debootstrap failed; see $cache/debootstrap.log"; tail -5 "$cache/debootstrap.log" >&2; exit 1; }
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
      tar -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
      rm -rf "$rootfs"
      say "debootstrap took $(( $(date +%s) - s )) s"
    fi
    docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV LANG=C.UTF-8' "$tarball" "$base_image" >/dev/null
  fi
  boot_dir="$cache/beam-boot-$beam"
  if [ ! -x "$boot_dir/container" ]; then
    command -v go >/dev/null || { say "Go is missing: it builds Beam's boot program (apt-get install golang-go, or go.dev)"; exit 1; }
    say "building Beam's boot program (Beam $beam) with Go"
    s=$(date +%s)
    # The checksum database is not reachable from every build machine; the module proxy is.
    GOSUMDB=off GOFLAGS=-mod=mod GOBIN="$boot_dir" go install "github.com/apache/beam/sdks/v2/python/container@v$beam"
    say "boot built in $(( $(date +%s) - s )) s"
  fi
  cp "$boot_dir/container" "$context/docker/boot"
  key="$(cat constraints.txt setup.py | sha256sum | cut -c1-16)-${extras:-core}"
  wheels="$cache/wheelhouse-$key"
  if [ ! -f "$wheels/.complete" ]; then
    say "building the wheelhouse ($wheels)"
    s=$(date +%s)
    rm -rf "$wheels"
    "$python" -m pip wheel -q --wheel-dir "$wheels" -c constraints.txt "$root${extras:+[$extras]}"
    # setuptools builds the project in the image; async-timeout is what redis needs on Python < 3.11.3 only
    # (Debian bookworm's python3 is 3.11.2; pip on a newer host leaves it out).
    "$python" -m pip download -q --no-deps --dest "$wheels" -c constraints.txt "setuptools>=68" wheel async-timeout
    rm -f "$wheels"/rewrite_mining-*.whl
    touch "$wheels/.complete"
    say "wheelhouse built in $(( $(date +%s) - s )) s ($(du -sh "$wheels" | cut -f1))"
  fi
  mkdir -p "$context/docker/wheelhouse"
  cp -l "$wheels"/*.whl "$context/docker/wheelhouse/" 2>/dev/null || cp "$wheels"/*.whl "$context/docker/wheelhouse/"
  build_args=(--build-arg "BASE_IMAGE=$base_image" --build-arg "STANZA_MODELS=0")
else
  build_args=()
fi

say "docker build -t $tag (EXTRAS='$extras', base $base)"
s=$(date +%s)
previous="$(docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)"
docker build -t "$tag" --label "rewrite-mining.content=$content" --build-arg "EXTRAS=$extras" "${build_args[@]}" \
  "$context" >"$cache/docker-build.log" 2>&1 \
  || { say "docker build failed; the end of $cache/docker-build.log:"; tail -30 "$cache/docker-build.log" >&2
       if grep -q "no space left on device" "$cache/docker-build.log"; then
         say "the disk of $docker_root is full: a build needs about 10 GB free there (docker image prune -a frees unused images)"
       fi
       exit 1; }
size=$(docker image inspect -f '{{.Size}}' "$tag")
# The image this tag named before (an earlier build of other code) is removed, not left as a dangling 4 GB
# image per build; the build stage's cached layers stay for the next build.
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect -f '{{.Id}}' "$tag")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
say "built $tag: $((size / 1000000)) MB; docker build $(( $(date +%s) - s )) s, all steps $(( $(date +%s) - t0 )) s"
echo "$tag"
