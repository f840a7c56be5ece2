#!/usr/bin/env bash
# docs_quote_files.sh DOC ROOT FILE...: passes when the Markdown file DOC quotes each FILE
# (a path relative to ROOT) verbatim: the line `<!-- quoted from FILE -->` in DOC is
# followed by a fenced code block (```lang ... ```) whose lines are FILE's lines, so a
# program shown in the docs is the program a test builds. On a mismatch it prints a diff.
set -u
doc=$1 root=$2
shift 2
status=0
for file in "$@"; do
  # The block after the marker: awk prints its lines, or nothing when the marker is absent.
  quoted=$(awk -v marker="<!-- quoted from $file -->" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 1 { exit }
    found == 2 && /^```$/ { exit }
    found == 2 { print }' "$doc"; echo x)
  quoted=${quoted%x}
  if ! grep -qxF -- "<!-- quoted from $file -->" "$doc"; then
    echo "$doc has no '<!-- quoted from $file -->' before a code block"
    status=1
  elif ! diff -u --label "$file" --label "$doc (quoted)" "$root/$file" <(printf '%s' "$quoted"); then
    echo "$doc does not quote $file as it is: copy the file into the block (or fix the file)"
    status=1
  else
    echo "$doc quotes $file ($(wc -l <"$root/$file") lines)"
  fi
done
exit $status
