#!/usr/bin/env bash
# command_line.sh DATA_DIR MD_IPU MPIEXEC...: md_ipu's command line as LAMMPS users type it.
#   md_ipu < FILE (and under mpirun), -echo, -screen, -log/-l, -nocite, -sf/-pk, and the ERROR
#   line in the log. Each check names what it expected.
set -u
data=$1 md_ipu=$2
shift 2
mpiexec=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -Eq -- "$2" "$1" || fail "$3 (no line matching /$2/ in $1:)$(echo; head -40 "$1")"; }
hasnt() { ! grep -Eq -- "$2" "$1" || fail "$3 (a line matches /$2/ in $1)"; }

# The script on standard input, as `lmp < in.file`; before, md_ipu ran its built-in example.
"$md_ipu" -log none --threads 1 <"$data/in.create_atoms" >stdin.out 2>&1 || fail "md_ipu < in.create_atoms failed"
has stdin.out '^Created 63 atoms' "the script from standard input runs"
hasnt stdin.out 'built-in example' "a script on standard input is not replaced by the built-in example"
"${mpiexec[@]}" -np 2 "$md_ipu" -log none --threads 1 <"$data/in.create_atoms" >mpi.out 2>&1 || fail "mpirun -np 2 md_ipu < FILE failed"
has mpi.out '^Created 63 atoms' "rank 0 reads standard input for both ranks"
"$md_ipu" -log none --threads 1 </dev/null >empty.out 2>&1 || fail "md_ipu < /dev/null failed"
has empty.out 'no script on standard input: running the built-in example' "empty standard input runs the built-in example"

# -echo screen: each line as read, and as substituted when that changed it.
printf 'variable a equal 2\nprint "a is $a"\nprint ${a}\n' >in.echo
"$md_ipu" -log none -echo screen -in in.echo >echo.out 2>&1 || fail "-echo screen failed"
has echo.out '^print "a is \$a"$' "-echo screen echoes the line as read"
has echo.out '^print 2$' "-echo screen echoes the substituted line"
"$md_ipu" -log echo.log -in in.echo >/dev/null 2>&1 || fail "the default echo failed"
has echo.log '^variable a equal 2$' "the log echoes input lines by default (LAMMPS's echo log)"
"$md_ipu" -log none -e none -in in.echo >quiet.out 2>&1 || fail "-e none failed"
hasnt quiet.out '^variable a' "-e none echoes nothing"

# -screen none / FILE; -l is -log.
"$md_ipu" -screen none -l screen.log -in in.echo >none.out 2>&1 || fail "-screen none failed"
[[ ! -s none.out ]] || fail "-screen none printed: $(head -3 none.out)"
has screen.log '^a is 2$' "-screen none still writes the log (-l)"
"$md_ipu" -sc screen.txt -log none -in in.echo >/dev/null 2>&1 || fail "-sc FILE failed"
has screen.txt '^a is 2$' "-sc FILE writes the screen output to FILE"

# -sf, -pk and -nocite are accepted; the first two say they are ignored.
"$md_ipu" -log none -sf opt -pk omp 2 neigh no -nocite -in in.echo >sf.out 2>&1 || fail "-sf/-pk/-nocite refused"
has sf.out '^  -sf opt: ignored' "-sf is reported as ignored"
has sf.out '^  -pk omp 2 neigh no: ignored' "-pk and its arguments are reported as ignored"

# ERROR lines go to the log, as LAMMPS writes them.
printf 'units lj\nfrobnicate 3\n' >in.bad
"$md_ipu" -log bad.log -in in.bad >bad.out 2>&1 && fail "a bad command exited 0"
has bad.log '^ERROR: frobnicate: unknown or unsupported command' "the ERROR line is in the log"

((fails == 0)) && echo "ok: command line as LAMMPS's"
exit $((fails > 0))
