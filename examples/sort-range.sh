#!/usr/bin/env bash
# Step 2 of docs/scale-out.md, one job per key range: fetch range RANGE from the bucket, sort
# it, cut it into import files with a manifest and upload them. Nothing is shared with the
# other jobs but the bucket: the job works in its own temporary directory (pksort's spilled
# runs go there too) and removes it at the end. The range's manifest is uploaded last, only
# when the whole pipe succeeded, so its presence in the bucket is what says "range done"; a
# failed job leaves no manifest and exits non-zero (rerun it: it overwrites its own objects).
#
# Usage: sort-range.sh RANGE (as the cut named it: 00, 01, ...)
# Env: BUCKET (s3://bucket/prefix, where step 1 put manifest.json and range-RANGE.csv.gz),
#      TABLE (schema.name in manifest.json), MEM (pksort -S, default 1G), PART (csvsplit -b,
#      default 64M), and whatever the aws CLI needs (credentials, AWS_ENDPOINT_URL).
set -euo pipefail
range=$1
: "${BUCKET:?set BUCKET=s3://bucket/prefix}" "${TABLE:?set TABLE=schema.name}"
export BUCKET # for the --filter command, which csvsplit runs with FILE set
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
cd "$work"
# The pgdump2csv manifest gives pksort and csvsplit the key, its types, the NULL token and
# whether there is a header: a worker that spells the key by column name needs it.
aws s3 cp --only-show-errors "$BUCKET/manifest.json" m.json
aws s3 cp --only-show-errors "$BUCKET/range-$range.csv.gz" - |
    pksort -m m.json -t "$TABLE" -S "${MEM:-1G}" -j 1 |
    csvsplit -b "${PART:-64M}" -m m.json -t "$TABLE" -j 1 -o "sorted-$range/part-{n:04}.csv" \
        --filter 'aws s3 cp --only-show-errors - "$BUCKET/$FILE"' \
        --write-manifest "sorted-$range.json"
aws s3 cp --only-show-errors "sorted-$range.json" "$BUCKET/sorted-$range.json"
