#!/usr/bin/env bash
# skip_without.sh FILE -- CMD...: runs CMD, or, where FILE is absent (data that stays in
# ../shared, outside a user's clone), says so and exits 77, CTest's skip code.
set -u
file=$1
shift 2
if [[ ! -e $file ]]; then
  echo "skipped: $file is absent (it lives in the shared data folder beside the repository)"
  exit 77
fi
exec "$@"
