#!/usr/bin/env bash
# netcdf_header.sh FILE REGEX... COMMAND...: runs COMMAND (which writes FILE),
# then passes when `ncdump -h FILE` matches every REGEX (given before "--").
set -u
file=$1
shift
regexes=()
while [[ $1 != -- ]]; do regexes+=("$1"); shift; done
shift
rm -f "$file"
"$@" >/dev/null 2>&1 || { echo "command failed: $*"; "$@"; exit 1; }
header=$(ncdump -h "$file") || { echo "ncdump cannot read $file"; exit 1; }
for r in "${regexes[@]}"; do
  grep -Eq -- "$r" <<<"$header" || { echo "ncdump -h $file does not match /$r/:"; echo "$header"; exit 1; }
done
[[ ! -e $file.part ]] || { echo "$file.part was left behind"; exit 1; }
echo "ok: $file"
