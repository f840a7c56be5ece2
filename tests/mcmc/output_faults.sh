#!/usr/bin/env bash
# mcmc_ipu's output set under faults (issue 21), in a private mount namespace (faults.sh):
#   output_faults.sh MCMC_IPU WORK_DIR together   a run's CSV files and NetCDF file replace an
#       earlier run's together or not at all: with 44 KiB left on the file system (one CSV
#       file of the set fits, so publishing file by file mixed two runs), the second
#       run fails naming the file and the reason, and every file of the first is unchanged;
#   output_faults.sh MCMC_IPU WORK_DIR read_only  a read-only folder is refused before sampling
#       (a run of 10^8 draws would not end within the test's time otherwise);
#   output_faults.sh MCMC_IPU WORK_DIR profile_full | profile_read_only  --profile FILE.json (the
#       runtime's profile) on a full file system (the published one unchanged) or read-only.
here=$(cd "$(dirname "$0")/../support" && pwd)
source "$here/faults.sh"
private_mounts "$@"
mcmc_ipu=$1 work=$2 mode=$3
rm -rf "$work" && mkdir -p "$work"
run=(--model std_normal --dimension 3 --chains 2 --warmup 100 --draws 200 --refresh 100000
     --no-summary)
case $mode in
  together)
    small_fs "$work/out" 512
    "$mcmc_ipu" "${run[@]}" --seed 1 --output "$work/out/o" >/dev/null || fail "the first run failed"
    mkdir -p "$work/first"
    cp "$work/out"/o_1.csv "$work/out"/o_2.csv "$work/out"/o.nc "$work/first/"
    fill "$work/out"
    truncate -s -44K "$work/out/filler"  # room for one new CSV file, not the set
    expect_error "^ERROR: .*/out/o(_[12]\.csv|\.nc).*([Nn]o space left|full)" \
      "$mcmc_ipu" "${run[@]}" --seed 2 --output "$work/out/o"
    for f in o_1.csv o_2.csv o.nc; do same_file "$work/first/$f" "$work/out/$f"; done
    no_partials "$work/out"
    ;;
  read_only)
    read_only "$work/ro"
    expect_error "^ERROR: .*/ro/o_1\.csv.*[Rr]ead-only" timeout 30 \
      "$mcmc_ipu" --model std_normal --draws 100000000 --refresh 100000000 --no-summary \
      --output "$work/ro/o"
    ;;
  profile_full)
    small_fs "$work/out" 256
    "$mcmc_ipu" "${run[@]}" --profile "$work/out/p.json" >/dev/null || fail "the first run failed"
    cp "$work/out/p.json" "$work/published"
    fill "$work/out"
    expect_error "'$work/out/p.json.part'.*No space left on device.*'$work/out/p.json' keeps its earlier content" \
      "$mcmc_ipu" "${run[@]}" --profile "$work/out/p.json"
    same_file "$work/published" "$work/out/p.json"
    no_partials "$work/out"
    ;;
  profile_read_only)
    read_only "$work/ro"
    expect_error "cannot write '$work/ro/p.json': its folder '$work/ro' is not writable: Read-only file system" \
      "$mcmc_ipu" "${run[@]}" --profile "$work/ro/p.json"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "passed: $mode"
