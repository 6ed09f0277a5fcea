# daydream_add_plugin(NAME SOURCES...): a Daydream plugin, NAME.so, to load
# with dd-opt -load-pass-plugin=NAME.so (include/daydream/Plugin/PassPlugin.h).
# Installed with the CMake package, so that an out-of-tree project gets it
# from find_package(Daydream); the project's own test plugins use it too.
function(daydream_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  # No Daydream library: the tool that loads the plugin provides them.
  target_link_libraries(${name} PRIVATE Daydream::PluginAPI)
  # Only ddGetPluginInfo (marked DD_PLUGIN_EXPORT) needs to be seen.
  set_target_properties(${name} PROPERTIES PREFIX ""
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()
