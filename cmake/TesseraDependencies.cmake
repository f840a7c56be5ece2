# Every dependency comes from a Debian package (scripts/setup installs them).
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED COMPONENTS random)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(Threads REQUIRED)
find_package(netCDF REQUIRED)
# Debian ships no CMake config for the C++4 bindings; pkg-config knows them.
find_package(PkgConfig REQUIRED)
pkg_check_modules(NETCDF_CXX4 REQUIRED IMPORTED_TARGET netcdf-cxx4)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)
# Stan Math (the mcmc models' reverse-mode gradients and distributions), from the headers
# of Debian's r-cran-stanheaders: cmake/FindStanMath.cmake.
list(APPEND CMAKE_MODULE_PATH ${PROJECT_SOURCE_DIR}/cmake)
find_package(StanMath 3.0 REQUIRED)
# HDF5's C library (DeePMD-kit's .dp models), as Debian's pkg-config module.
pkg_check_modules(HDF5 REQUIRED IMPORTED_TARGET hdf5)
if(TESSERA_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(TESSERA_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
