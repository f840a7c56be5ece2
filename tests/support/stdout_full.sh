#!/usr/bin/env bash
# stdout_full.sh COMMAND...: runs COMMAND with its standard output on /dev/full (every write
# fails with ENOSPC) and passes when it exits with status 1 and says so on standard error.
set -u
[[ -c /dev/full ]] || { echo "skipped: this system has no /dev/full"; exit 77; }
err=$("$@" 2>&1 >/dev/full)
status=$?
[[ $status -eq 1 ]] || { echo "expected exit status 1, got $status from: $*"; echo "$err"; exit 1; }
grep -q "^ERROR: writing standard output failed: No space left on device" <<<"$err" ||
  { echo "no message about standard output on standard error:"; echo "$err"; exit 1; }
echo "ok: $*: $(tail -1 <<<"$err")"
