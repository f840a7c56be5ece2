# faults.sh: sourced by the fault-injection tests of the output files (tests/md, tests/weather).
#
#   source faults.sh; private_mounts "$@"   # first: re-runs the test in its own mount namespace
#
# Faults, made so that root cannot step around them:
#   full_fs DIR        a 256 KiB tmpfs at DIR, then filled (writes fail with ENOSPC)
#   small_fs DIR KIB   a tmpfs of KIB KiB at DIR
#   fill DIR           fills the file system holding DIR
#   read_only DIR      a tmpfs at DIR remounted read-only (root's writes fail with EROFS too)
#   char_device PATH   a character device node (the same as /dev/null: 1, 3)
# The mounts live in the test's private mount namespace (unshare -m), so they vanish with the
# test whatever happens and no other process sees them. Without the privilege to make one
# (not root, no user namespaces), the test says so and is skipped (exit 77).
#
# Checks: expect_error REGEX CMD... (exit status 1, stderr matches), same_file A B,
# no_partials DIR, text_frames FILE (complete frames of a LAMMPS text dump), nc_frames FILE.
#
# One rank of an MPI job killed (no privilege needed):
#   start_job OUT ERR CMD...       starts CMD (mpirun ...) in the background, in its own process
#                                  group with SIGINT not ignored (killed when the test exits);
#                                  sets job_pid
#   rank_pid RANK                  the pid of the job's rank RANK (a process under job_pid whose
#                                  environment has OMPI_COMM_WORLD_RANK=RANK), waiting up to 30 s
#   kill_rank_and_wait RANK SECS   SIGKILLs that rank and waits at most SECS for mpirun to
#                                  return; sets job_status and job_ms (ms from the kill to the
#                                  return), fails if mpirun is still running then (and ends it)
#   expect_ended_by_kill RANK ERR PATTERN
#                                  after kill_rank_and_wait: prints the time mpirun took, and
#                                  fails unless its status is non-zero, ERR (its standard error)
#                                  names the killed rank, and no process whose command line
#                                  holds PATTERN is left
#   wait_for_text FILE REGEX SECS  waits until FILE holds a line matching REGEX
set -u

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

private_mounts() {
  [[ -n ${TESSERA_PRIVATE_MOUNTS:-} ]] && return 0
  command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
  export TESSERA_PRIVATE_MOUNTS=1
  if [[ $(id -u) -eq 0 ]]; then
    unshare -m --propagation private true 2>/dev/null &&
      exec unshare -m --propagation private bash "$0" "$@"
  fi
  # As another user, a user namespace maps the user to root for its own mounts.
  unshare -rm true 2>/dev/null && exec unshare -rm bash "$0" "$@"
  skip "cannot make a private mount namespace here (needs root or user namespaces)"
}

small_fs() {
  mkdir -p "$1"
  mount -t tmpfs -o "size=${2}k" tmpfs "$1" || skip "cannot mount a tmpfs at $1"
}
fill() {
  dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null
  local avail
  avail=$(df --output=avail "$1" | tail -1)
  [[ $avail -eq 0 ]] || fail "could not fill $1 ($avail KiB left)"
}
full_fs() { small_fs "$1" 256 && fill "$1"; }
read_only() {
  small_fs "$1" 256
  mount -o remount,ro "$1" || skip "cannot remount $1 read-only"
  touch "$1/probe" 2>/dev/null && fail "$1 is still writable after remounting it read-only"
  return 0
}
char_device() { mknod "$1" c 1 3 || skip "cannot make a device node at $1 (mknod)"; }

# expect_error REGEX CMD...: CMD exits with status 1 and its standard error matches REGEX.
expect_error() {
  local regex=$1 err status
  shift
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  [[ $status -eq 1 ]] || fail "expected exit status 1, got $status from: $*"$'\n'"$err"
  grep -Eq -- "$regex" <<<"$err" || fail "standard error does not match /$regex/:"$'\n'"$err"
  echo "ok: $* -> $(head -1 <<<"$err")"
}
same_file() { cmp -s "$1" "$2" || fail "$2 changed (it should hold what $1 holds)"; }
no_partials() {
  local left
  left=$(find "$1" -name '*.part*' 2>/dev/null)
  [[ -z $left ]] || fail "partial files left behind: $left"
}
# The number of frames in a LAMMPS text dump (custom or atom), after checking that every frame
# is complete: as many atom lines as its header says.
text_frames() {
  awk '
    /^ITEM: TIMESTEP/ { if (want != seen) bad = 1; frames++; state = "step"; next }
    /^ITEM: NUMBER OF ATOMS/ { state = "count"; next }
    /^ITEM: ATOMS/ { state = "atoms"; seen = 0; next }
    /^ITEM:/ { state = ""; next }
    state == "count" { want = $1; state = ""; next }
    state == "atoms" { if (NF < 2) bad = 1; seen++ }
    END { if (want != seen) bad = 1; if (bad) { print "incomplete"; exit 1 } print frames + 0 }
  ' "$1"
}
# The number of frames in a NetCDF trajectory, after reading all of it (ncdump fails on a
# truncated or corrupt file).
nc_frames() {
  ncdump "$1" >/dev/null 2>&1 || { echo "unreadable"; return 1; }
  ncdump -h "$1" | sed -n 's/.*UNLIMITED ; \/\/ (\([0-9]*\) currently).*/\1/p'
}

start_job() {
  local out=$1 err=$2
  shift 2
  set -m
  "$@" >"$out" 2>"$err" &
  job_pid=$!
  set +m
  # A test that fails before the job ends leaves no process behind.
  trap 'kill -KILL -- -"$job_pid" 2>/dev/null' EXIT
}
# The processes below PID, children first.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
rank_pid() {
  local rank=$1 pid
  for _ in $(seq 300); do
    for pid in $(descendants "$job_pid"); do
      if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then
        echo "$pid"
        return 0
      fi
    done
    sleep 0.1
  done
  fail "no process of rank $rank under mpirun (pid $job_pid)"
}
kill_rank_and_wait() {
  local rank=$1 seconds=$2 pid start
  pid=$(rank_pid "$rank") || exit 1
  start=$(date +%s%N)
  kill -KILL "$pid" || fail "rank $rank (pid $pid) was gone before the kill"
  for _ in $(seq $((seconds * 20))); do
    kill -0 "$job_pid" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$job_pid" 2>/dev/null; then
    local left
    left=$(descendants "$job_pid" | tr '\n' ' ')
    kill -KILL -- -"$job_pid" 2>/dev/null
    wait "$job_pid" 2>/dev/null
    fail "mpirun was still running ${seconds} s after rank $rank was killed (processes: $left)"
  fi
  wait "$job_pid"
  job_status=$?
  job_ms=$((($(date +%s%N) - start) / 1000000))
}
expect_ended_by_kill() {
  local rank=$1 err=$2 pattern=$3 left
  echo "mpirun returned $job_ms ms after rank $rank was killed, status $job_status"
  [[ $job_status -ne 0 ]] || fail "mpirun exited 0 after rank $rank was killed"
  grep -Eiq "rank $rank .*(signal 9|killed)" "$err" ||
    fail "no message naming rank $rank on standard error: $(cat "$err")"
  left=$(pgrep -f -- "$pattern") && fail "ranks still running after mpirun returned: $left"
  return 0
}
wait_for_text() {
  local file=$1 regex=$2 seconds=$3
  for _ in $(seq $((seconds * 10))); do
    grep -Eq -- "$regex" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "$file shows no line matching /$regex/ after $seconds s: $(tail -5 "$file" 2>/dev/null)"
}
