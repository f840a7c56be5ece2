# Where the package files go: TesseraConfig.cmake and one TesseraTargets_MODULE.cmake
# per library, so that find_package(Tessera COMPONENTS MODULE) loads (and finds the
# dependencies of) only the libraries a code uses.
set(TESSERA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)

# tessera_library(MODULE SOURCES...): the library tessera_MODULE, used as
# tessera::MODULE in the tree and after find_package(Tessera), with its headers
# in include/ beside the CMakeLists.txt that calls it, warnings on, installed
# as the package's component MODULE. Callers add their own link libraries; the
# component's dependencies are listed in cmake/TesseraConfig.cmake.in.
function(tessera_library module)
  set(target tessera_${module})
  add_library(${target} ${ARGN})
  add_library(tessera::${module} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${module} OUTPUT_NAME ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:tessera_warnings>)
  install(TARGETS ${target} EXPORT Tessera_${module}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT Tessera_${module} NAMESPACE tessera:: FILE TesseraTargets_${module}.cmake
          DESTINATION ${TESSERA_CMAKE_DIR})
  install(DIRECTORY include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
