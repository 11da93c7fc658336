#!/bin/sh
# The image's entrypoint: Beam's SDK harness boot program for what runners start, any command for a person.
#
#   docker run IMAGE --id=1 --provision_endpoint=HOST:PORT ...   (Flink / Spark DOCKER environment, Dataflow)
#   docker run IMAGE --worker_pool                               (a worker pool on port 50000: Kubernetes)
#   docker run IMAGE rewrite-mine --help                         (a command: run as given)
#   docker run IMAGE                                             (no argument: rewrite-mine --help)
#
# Runners pass only flags (`--name=value`), so an argument starting with "-" goes to Beam's boot.
set -e
case "${1:-}" in
  "") exec rewrite-mine --help ;;
  -*) exec /opt/apache/beam/boot "$@" ;;
  *) exec "$@" ;;
esac
