#!/usr/bin/env bash
# install_and_consume.sh BUILD_DIR SOURCE_DIR WORK_DIR [CMAKE_ARG...] [-- PROGRAM [ARG...]]:
# installs the Tessera build into WORK_DIR/prefix, then configures (with the extra
# CMAKE_ARGs, e.g. -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=TRUE), builds and runs the
# consumer project in SOURCE_DIR against it with find_package(Tessera). PROGRAM is the
# consumer's executable, relative to its build folder [consumer], run with the ARGs.
# A failing step exits with its status, the step's errors on standard error.
set -euo pipefail
build=$1 source=$2 work=$3
shift 3
cmake_args=()
while (($# > 0)) && [[ $1 != -- ]]; do
  cmake_args+=("$1")
  shift
done
program=(consumer)
if (($# > 1)); then
  shift
  program=("$@")
fi
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  "${cmake_args[@]}" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/${program[0]}" "${program[@]:1}"
