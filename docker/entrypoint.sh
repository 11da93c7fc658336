#!/bin/sh
# The image's entrypoint: Beam's SDK harness boot program for what runners start, any command for a person.
#
#   docker run IMAGE --id=1 --provision_endpoint=HOST:PORT ...   (Flink / Spark DOCKER environment, Dataflow)
#   docker run IMAGE --worker_pool                               (a worker pool on port 50000: Kubernetes)
#   docker run IMAGE rewrite-mine --help                         (a command: run as given)
#   docker run IMAGE                                             (no argument: rewrite-mine --help)
#
# Runners pass only flags (`--name=value`), so an argument starting with "-" goes to Beam's boot.
#
# A worker's container stays a short while (REWRITE_MINE_WORKER_LINGER_S, default 15 s, idle) after its
# harness ended. Beam's DOCKER environment closes a worker with `docker kill`, then `docker rm`; when the
# container has already exited (the harness ends as soon as its control channel closes), the kill fails
# ("is not running") and Beam never runs the rm, which leaves an exited container on the TaskManager's host
# for every such worker. Lingering, the kill finds it running. SIGTERM and SIGINT (docker stop) reach the
# harness while it runs and end the linger at once.
set -e
case "${1:-}" in
  "") exec rewrite-mine --help ;;
  --worker_pool*) exec /opt/apache/beam/boot "$@" ;;
  -*)
    /opt/apache/beam/boot "$@" &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null || true; wait "$child" || true; exit 143' TERM INT
    rc=0
    wait "$child" || rc=$?
    trap 'exit "$rc"' TERM INT
    sleep "${REWRITE_MINE_WORKER_LINGER_S:-15}" &
    wait $! || true
    exit "$rc" ;;
  *) exec "$@" ;;
esac
