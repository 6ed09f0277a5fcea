# cmake --install: headers, libraries, tools and the CMake package that lets
# an outside project find_package(Daydream) and build a plugin against it
# (cmake/DaydreamConfig.cmake.in, docs/WritingAPass.md).
include(CMakePackageConfigHelpers)
set(DAYDREAM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Daydream)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/daydream
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/daydream/IR/ddir_generated.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/daydream/IR)

set(DAYDREAM_INSTALLED_LIBRARIES DaydreamIR DaydreamPass DaydreamAnalysis
  DaydreamKernelFacts DaydreamDevice DaydreamTransforms DaydreamCollectiveNames DaydreamComm DaydreamSim
  DaydreamPasses DaydreamPlugin DaydreamImport DaydreamSeqPoint DaydreamSynth
  DaydreamTools DaydreamSupport)
install(TARGETS ${DAYDREAM_INSTALLED_LIBRARIES} DaydreamPluginAPI
  daydream_llvm daydream_warnings
  EXPORT DaydreamTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT DaydreamTargets NAMESPACE Daydream::
  DESTINATION ${DAYDREAM_INSTALL_CMAKEDIR})

set(DAYDREAM_INSTALLED_TOOLS dd-diff dd-import dd-opt dd-seqpoint dd-sim dd-synth)
if(DAYDREAM_HAVE_CUPTI)
  list(APPEND DAYDREAM_INSTALLED_TOOLS dd-trace)
  # Where dd-trace looks for it: lib/ beside its bin/.
  install(TARGETS ddtrace LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(TARGETS ${DAYDREAM_INSTALLED_TOOLS}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/DaydreamConfig.cmake.in
  ${PROJECT_BINARY_DIR}/DaydreamConfig.cmake
  INSTALL_DESTINATION ${DAYDREAM_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/DaydreamConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/DaydreamConfig.cmake
  ${PROJECT_BINARY_DIR}/DaydreamConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/DaydreamPlugin.cmake
  DESTINATION ${DAYDREAM_INSTALL_CMAKEDIR})
