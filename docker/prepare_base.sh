#!/bin/sh
# Run by the Dockerfile's build stage: Beam's boot program and the venv the project is installed in.
#
# * Beam's published SDK image (the default base) has Beam's boot program at /opt/apache/beam/boot.
# * A plain Debian base (tools/build_image.sh makes one with debootstrap where no registry can be reached)
#   has none: it comes from the build context (docker/boot, built by tools/build_image.sh with
#   `go install github.com/apache/beam/sdks/v2/python/container@v<Beam's pin>`).
# The project goes into its own venv ($VENV, first on PATH) in both: Debian's python3 takes no pip install
# outside one (PEP 668), and the final stage copies the venv alone, without the wheels it came from.
set -eu
here="$(dirname "$0")"
VENV="${VENV:-/opt/rewrite-mining/venv}"
if [ ! -x /opt/apache/beam/boot ]; then
  if [ ! -x "$here/boot" ]; then
    echo "prepare_base.sh: the base image has no /opt/apache/beam/boot and the build context no docker/boot;" >&2
    echo "build with tools/build_image.sh (it builds Beam's boot with Go), or use Beam's SDK image as the base." >&2
    exit 1
  fi
  mkdir -p /opt/apache/beam
  cp "$here/boot" /opt/apache/beam/boot
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip --version
