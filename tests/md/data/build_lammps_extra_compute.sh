#!/usr/bin/env bash
# build_lammps_extra_compute.sh DIR: builds, in DIR, the LAMMPS that Debian ships (its source
# package, the same version as the lammps package's lmp) with the EXTRA-COMPUTE package that
# Debian's build leaves out (compute adf), and MOLECULE, KSPACE and RIGID; prints the path of its
# lmp. make_reference.sh runs the inputs that need it with this binary (LMP_EXTRA_COMPUTE).
# Needs the deb-src lines of Debian's archive, cmake, ninja and FFTW; about 25 minutes on 2 cores.
set -euo pipefail
dir=$(realpath -m "$1")
mkdir -p "$dir"
cd "$dir"
if [[ ! -d source ]]; then
  apt-get source --download-only lammps >&2
  mkdir source
  tar xf lammps_*.orig.tar.xz -C source --strip-components=1
fi
cmake -S source/cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_MPI=off \
  -DBUILD_OMP=off -DPKG_MOLECULE=on -DPKG_KSPACE=on -DPKG_RIGID=on -DPKG_EXTRA-COMPUTE=on \
  -DFFT=FFTW3 >&2
ninja -C build lmp >&2
echo "$dir/build/lmp"
