# FindStanMath: Stan Math, the C++ library under Stan (reverse-mode automatic
# differentiation, the *_lpdf/*_lpmf distributions, the constraining transforms), from the
# headers Debian's r-cran-stanheaders installs for R (StanHeaders 2.21: Stan Math 3.0).
#
#   StanMath_FOUND, StanMath_INCLUDE_DIR, StanMath_VERSION
#   StanMath::StanMath   an interface target: the headers (as system headers), STAN_THREADS
#                        (one AD tape per thread: chains run on threads) and oneTBB, which
#                        Stan Math's threaded tape registers itself with.
#
# Set StanMath_ROOT to a StanHeaders include folder to use another copy.
find_path(StanMath_INCLUDE_DIR stan/math/version.hpp
  HINTS ${StanMath_ROOT}
  PATHS /usr/lib/R/site-library/StanHeaders/include
        /usr/local/lib/R/site-library/StanHeaders/include)
if(StanMath_INCLUDE_DIR)
  file(STRINGS ${StanMath_INCLUDE_DIR}/stan/math/version.hpp _stan_math_version
       REGEX "#define STAN_MATH_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3"
         StanMath_VERSION "${_stan_math_version}")
endif()
find_package(TBB QUIET)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(StanMath
  REQUIRED_VARS StanMath_INCLUDE_DIR TBB_FOUND
  VERSION_VAR StanMath_VERSION
  REASON_FAILURE_MESSAGE
    "Stan Math comes from Debian's r-cran-stanheaders and needs oneTBB (libtbb-dev), both installed by scripts/setup")

if(StanMath_FOUND AND NOT TARGET StanMath::StanMath)
  add_library(StanMath::StanMath INTERFACE IMPORTED)
  # The ODE solvers' SUNDIALS headers live beside Stan Math's in StanHeaders.
  target_include_directories(StanMath::StanMath SYSTEM INTERFACE
    ${StanMath_INCLUDE_DIR} ${StanMath_INCLUDE_DIR}/src)
  # BOOST_DISABLE_ASSERTS as rstan builds Stan Math (its Boost.Math calls check through
  # Stan's own error handling instead). Stan Math extends Eigen's matrices (val(), adj())
  # through Eigen's plugin macro, which must be set wherever Eigen is first included: on the
  # command line, not by Stan's header, since other headers include Eigen before it.
  target_compile_definitions(StanMath::StanMath INTERFACE STAN_THREADS BOOST_DISABLE_ASSERTS
    EIGEN_MATRIXBASE_PLUGIN="stan/math/prim/mat/eigen_plugins.h" EIGEN_STAN_MATRIXBASE_PLUGIN)
  target_link_libraries(StanMath::StanMath INTERFACE TBB::tbb)
endif()
mark_as_advanced(StanMath_INCLUDE_DIR)
