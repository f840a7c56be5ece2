# Warnings and sanitizers, applied to every Tessera target through tessera_warnings.
add_library(tessera_warnings INTERFACE)
target_compile_options(tessera_warnings INTERFACE -Wall -Wextra -Wpedantic)

# TESSERA_FUZZ: the libFuzzer harnesses of tests/fuzz (scripts/fuzz). Every target is built
# with coverage instrumentation for the fuzzer and with ASan+UBSan; clang only.
if(TESSERA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TESSERA_FUZZ needs clang (libFuzzer), not ${CMAKE_CXX_COMPILER_ID}; "
                        "configure with -DCMAKE_CXX_COMPILER=clang++ (scripts/fuzz does)")
  endif()
  if(NOT TESSERA_SANITIZE STREQUAL "")
    message(FATAL_ERROR "TESSERA_FUZZ builds with ASan+UBSan itself; leave TESSERA_SANITIZE empty")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
  ]] TESSERA_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(NOT TESSERA_HAVE_LIBFUZZER)
    message(FATAL_ERROR "clang cannot link -fsanitize=fuzzer: install libclang-rt-14-dev "
                        "(scripts/setup fuzz)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# TESSERA_SANITIZER_FLAGS: compile and link flags of the sanitized builds. tessera::core passes
# them on to the codes built against a sanitized install: they must be compiled with them too,
# since Eigen allocates differently under ASan (Memory.h tests __SANITIZE_ADDRESS__) and a
# vector allocated in one and freed in the other overflows.
if(TESSERA_SANITIZE STREQUAL "address")
  set(TESSERA_SANITIZER_FLAGS -fsanitize=address,undefined)
  add_compile_options(${TESSERA_SANITIZER_FLAGS} -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(${TESSERA_SANITIZER_FLAGS})
elseif(TESSERA_SANITIZE STREQUAL "thread")
  set(TESSERA_SANITIZER_FLAGS -fsanitize=thread)
  add_compile_options(${TESSERA_SANITIZER_FLAGS} -fno-omit-frame-pointer)
  add_link_options(${TESSERA_SANITIZER_FLAGS})
elseif(NOT TESSERA_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TESSERA_SANITIZE must be empty, 'address' or 'thread', not '${TESSERA_SANITIZE}'")
endif()
