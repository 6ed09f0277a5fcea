//===- DdtraceLoad.cpp - Loads libddtrace.so as CUDA does -----------------===//
//
// ddtrace-load LIBRARY: dlopens LIBRARY, calls its InitializeInjection and
// prints what it returned, then exits normally (so that the library's exit
// handler, if it installed one, runs too). The lit tests in test/Trace use
// it to check the library's behaviour on a machine without a GPU, where the
// driver never loads it.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <dlfcn.h>

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: ddtrace-load LIBRARY\n");
    return 2;
  }
  void *Handle = dlopen(Argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    std::fprintf(stderr, "ddtrace-load: %s\n", dlerror());
    return 1;
  }
  using InitFn = int (*)();
  auto Init = reinterpret_cast<InitFn>(dlsym(Handle, "InitializeInjection"));
  if (!Init) {
    std::fprintf(stderr, "ddtrace-load: no InitializeInjection in %s\n",
                 Argv[1]);
    return 1;
  }
  int Result = Init();
  std::fflush(stderr);
  std::printf("InitializeInjection returned %d\n", Result);
  return 0;
}
