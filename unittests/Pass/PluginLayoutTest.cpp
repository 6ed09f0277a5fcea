//===- PluginLayoutTest.cpp - The plugin API version covers its layout ----===//
//
// A plugin is compiled against the inline layout of the classes it builds
// on (PassPlugin.h): a member added to Graph or AnalysisManager moves the
// fields its inline functions read, and the tool would then run code built
// for another layout. This test pins the sizes of those classes to the API
// version, so that a change of layout fails here until
// DD_PLUGIN_API_VERSION is bumped and the sizes below recorded with it.
// (Sizes do not see a new virtual function or a reordering of equal-sized
// members; those still need the bump by hand.)
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Pass/PassRegistry.h"
#include "daydream/Plugin/PassPlugin.h"

#include "gtest/gtest.h"

#include <string>

using namespace dd;

namespace {

std::string layout() {
  return "Graph " + std::to_string(sizeof(Graph)) + ", Task " +
         std::to_string(sizeof(Task)) + ", Edge " +
         std::to_string(sizeof(Edge)) + ", Lane " +
         std::to_string(sizeof(Lane)) + ", TaskAttrs " +
         std::to_string(sizeof(TaskAttrs)) + ", AnalysisManager " +
         std::to_string(sizeof(AnalysisManager)) + ", PassInfo " +
         std::to_string(sizeof(PassInfo)) + ", PluginRegistrar " +
         std::to_string(sizeof(PluginRegistrar)) + ", DdPluginInfo " +
         std::to_string(sizeof(DdPluginInfo));
}

TEST(PluginLayoutTest, SizesAreTheVersionsOwn) {
  static_assert(DD_PLUGIN_API_VERSION == 5,
                "a new plugin API version: record its layout below");
  EXPECT_EQ(layout(), "Graph 672, Task 48, Edge 12, Lane 24, TaskAttrs 48, "
                      "AnalysisManager 168, PassInfo 168, PluginRegistrar 48, "
                      "DdPluginInfo 32")
      << "the layout plugins build on changed: bump DD_PLUGIN_API_VERSION "
         "(include/daydream/Plugin/PassPlugin.h) and record the new sizes";
}

} // namespace
