#!/usr/bin/env bash
# A Docker engine for the worker-image tests and `make image`: Debian's docker.io, started as root.
#
#   tools/docker_engine.sh start    if no engine answers `docker info`: start dockerd (as root) in the
#                                   background and wait until it answers (log and pid under
#                                   .engines/docker/); prints "started" or "running"
#   tools/docker_engine.sh stop     stop the dockerd this script started (none other)
#   tools/docker_engine.sh status
#
# dockerd comes from Debian's docker.io package (tools/debian-packages-test.txt, installed by
# `make test`); where it is missing and this is not root, the exact command is printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${REWRITE_MINE_ENGINES:-$root/.engines}/docker"
pidfile="$dir/dockerd.pid"
answers() { timeout 20 docker info >/dev/null 2>&1; }
case "${1:-status}" in
  start)
    if answers; then echo running; exit 0; fi
    if ! command -v dockerd >/dev/null 2>&1; then
      echo "docker_engine.sh: no dockerd; install Debian's engine: sudo apt-get install -y docker.io" >&2
      exit 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
      echo "docker_engine.sh: no Docker engine answers and dockerd needs root: sudo dockerd & (or sudo systemctl start docker)" >&2
      exit 1
    fi
    mkdir -p "$dir"
    nohup dockerd >"$dir/dockerd.log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 60); do
      if answers; then echo started; exit 0; fi
      kill -0 "$(cat "$pidfile")" 2>/dev/null || break
      sleep 1
    done
    echo "docker_engine.sh: dockerd did not come up; the end of $dir/dockerd.log:" >&2
    tail -15 "$dir/dockerd.log" >&2
    exit 1
    ;;
  stop)
    if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      pid="$(cat "$pidfile")"
      kill "$pid"
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      rm -f "$pidfile"
      echo stopped
    fi
    ;;
  status)
    if answers; then echo running; else echo "not running"; exit 1; fi
    ;;
  *) echo "usage: tools/docker_engine.sh start|stop|status" >&2; exit 2 ;;
esac
