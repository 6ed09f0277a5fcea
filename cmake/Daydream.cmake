# Helpers shared by the project's CMake files.

# LLVM's flags and the one shared libLLVM (Debian builds it with
# LLVM_LINK_LLVM_DYLIB): linking static LLVM components into both a tool and a
# plugin would register their command-line options twice.
add_library(daydream_llvm INTERFACE)
target_include_directories(daydream_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(DAYDREAM_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(daydream_llvm INTERFACE ${DAYDREAM_LLVM_DEFS})
target_link_libraries(daydream_llvm INTERFACE LLVM)
if(NOT LLVM_ENABLE_RTTI)
  target_compile_options(daydream_llvm INTERFACE -fno-rtti)
endif()

# Warnings for the project's own code.
add_library(daydream_warnings INTERFACE)
target_compile_options(daydream_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)

# daydream_add_library(NAME SOURCES... LINK libs...)
function(daydream_add_library name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)
  target_link_libraries(${name} PUBLIC daydream_llvm ${ARG_LINK}
    PRIVATE daydream_warnings)
endfunction()

# daydream_add_tool(NAME SOURCES... LINK libs...): a tool in bin/ whose
# symbols are exported, so that plugins it loads can use the libraries.
function(daydream_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} daydream_warnings)
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
endfunction()
