# tessera_library(MODULE SOURCES...): the library tessera_MODULE, used as
# tessera::MODULE in the tree and after find_package(Tessera), with its headers
# in include/ beside the CMakeLists.txt that calls it, warnings on, installed
# into the TesseraTargets export. Callers add their own link libraries.
function(tessera_library module)
  set(target tessera_${module})
  add_library(${target} ${ARGN})
  add_library(tessera::${module} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${module} OUTPUT_NAME ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:tessera_warnings>)
  install(TARGETS ${target} EXPORT TesseraTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
