#!/bin/sh
# Mine the newest local Wikipedia dump with `rewrite-mine all`, for cron or a systemd timer.
#
#   DUMPS=/data/dumps/enwiki OUT=/data/rewrite-mining deploy/rewrite-mine-latest.sh
#
# Idempotent: a dump that was already published is "up to date" (nothing runs); a new dump is
# written beside the old under $OUT/<YYYYMMDD>/ and $OUT/<dataset>.LATEST moves to it only when
# the whole run finished. flock keeps two runs from overlapping.
set -eu
DUMPS=${DUMPS:-/data/dumps/enwiki}
OUT=${OUT:-/data/rewrite-mining}
REWRITE_MINE=${REWRITE_MINE:-rewrite-mine}
WORKERS=${WORKERS:-$(nproc)}

# Dump directories are named by date (YYYYMMDD), as on dumps.wikimedia.org.
latest=$(find "$DUMPS" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]' \
         -exec basename {} \; | sort | tail -n 1)
if [ -z "$latest" ]; then
    echo "no dump directory (YYYYMMDD) under $DUMPS" >&2
    exit 1
fi
set -- --input "$DUMPS/$latest/*-$latest-pages-articles*.xml*.bz2"
if ls "$DUMPS/$latest/"*-"$latest"-pages-meta-history*.bz2 >/dev/null 2>&1; then
    set -- "$@" --history_input "$DUMPS/$latest/*-$latest-pages-meta-history*.bz2"
fi
exec flock --nonblock "$OUT.lock" \
    "$REWRITE_MINE" all "$@" --output "$OUT" --dump_date auto --tsv --num_workers "$WORKERS"
