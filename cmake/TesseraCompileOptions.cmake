# Warnings and sanitizers, applied to every Tessera target through tessera_warnings.
add_library(tessera_warnings INTERFACE)
target_compile_options(tessera_warnings INTERFACE -Wall -Wextra -Wpedantic)

if(TESSERA_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(TESSERA_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT TESSERA_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TESSERA_SANITIZE must be empty, 'address' or 'thread', not '${TESSERA_SANITIZE}'")
endif()
