#!/usr/bin/env bash
# log_switches.sh MD_IPU...: the log command as LAMMPS's: output after `log second.log` goes to
# second.log alone, and after `log first.log append` back to the end of the first log, which
# keeps what it held. Passes when each log holds its lines and not the others'.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
printf 'print "first line"\nlog second.log\nprint "second line"\nlog first.log append\nprint "third line"\n' > in.log
"$@" -log first.log -in in.log > out 2>&1 || { echo "md_ipu failed:"; cat out; exit 1; }
status=0
grep -qx "first line" first.log && grep -qx "third line" first.log || { echo "first.log lacks its lines:"; cat first.log; status=1; }
grep -qx "second line" first.log && { echo "first.log holds the second log's line"; status=1; }
grep -qx "second line" second.log || { echo "second.log lacks its line:"; cat second.log; status=1; }
grep -qxE "(first|third) line" second.log && { echo "second.log holds the first log's lines"; status=1; }
for line in "first line" "second line" "third line"; do
  grep -qx "$line" out || { echo "the screen lacks '$line'"; status=1; }
done
exit $status
