#!/usr/bin/env bash
# expect_failure.sh REGEX COMMAND...: passes when COMMAND exits with status 1
# and its standard error matches REGEX (an extended regular expression).
set -u
regex=$1
shift
err=$(mktemp)
"$@" >/dev/null 2>"$err"
status=$?
if [[ $status -ne 1 ]]; then
  echo "expected exit status 1, got $status from: $*"; cat "$err"; rm -f "$err"; exit 1
fi
if ! grep -Eq -- "$regex" "$err"; then
  echo "standard error does not match /$regex/:"; cat "$err"; rm -f "$err"; exit 1
fi
rm -f "$err"
