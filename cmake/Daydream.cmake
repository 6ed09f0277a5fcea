include(GNUInstallDirs)

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

# What a plugin compiles against (include/daydream/Plugin/PassPlugin.h):
# the headers and LLVM's flags, and no library, since a plugin uses the
# symbols of the tool that loads it. Installed as Daydream::PluginAPI.
add_library(DaydreamPluginAPI INTERFACE)
target_include_directories(DaydreamPluginAPI INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(DaydreamPluginAPI INTERFACE daydream_llvm)
target_compile_features(DaydreamPluginAPI INTERFACE cxx_std_17)
add_library(Daydream::PluginAPI ALIAS DaydreamPluginAPI)

# Warnings for the project's own code.
add_library(daydream_warnings INTERFACE)
target_compile_options(daydream_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)

# daydream_add_library(NAME SOURCES... LINK libs...)
function(daydream_add_library name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # Header-only private headers that several libraries share (such as
  # Support/FreshMemory.h) are included as "Library/Header.h" from lib/;
  # they are not installed.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(${name} PUBLIC daydream_llvm ${ARG_LINK}
    PRIVATE daydream_warnings)
endfunction()

# The libraries a plugin may call into (docs/WritingAPass.md): the tools
# that load plugins link them whole, since a static library contributes only
# the objects the tool itself uses, and a plugin may use any of them.
set(DAYDREAM_PLUGIN_API_LIBRARIES
  DaydreamIR DaydreamPass DaydreamAnalysis DaydreamDevice DaydreamTransforms DaydreamSim)

# daydream_add_tool(NAME SOURCES... LINK libs... [PLUGINS]): a tool in bin/
# whose symbols are exported, so that plugins it loads can use the
# libraries; with PLUGINS the plugin API libraries are linked whole.
function(daydream_add_tool name)
  cmake_parse_arguments(ARG "PLUGINS" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} daydream_warnings)
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
  if(ARG_PLUGINS)
    set(whole)
    foreach(lib ${DAYDREAM_PLUGIN_API_LIBRARIES})
      list(APPEND whole $<TARGET_FILE:${lib}>)
    endforeach()
    # The same archives follow, unflagged, in the usual link order; having
    # been loaded whole here, they add nothing there.
    target_link_options(${name} PRIVATE LINKER:--whole-archive ${whole}
      LINKER:--no-whole-archive)
    add_dependencies(${name} ${DAYDREAM_PLUGIN_API_LIBRARIES})
  endif()
endfunction()
