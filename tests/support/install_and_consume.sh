#!/usr/bin/env bash
# install_and_consume.sh BUILD_DIR SOURCE_DIR WORK_DIR: installs the Tessera
# build into WORK_DIR/prefix, then configures, builds and runs the consumer
# project in SOURCE_DIR against it with find_package(Tessera).
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
