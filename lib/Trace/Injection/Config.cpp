//===- Config.cpp - What the dd-trace launcher asks the library for -------===//
//
// Each message names the variable, since the user set it only indirectly,
// through a dd-trace option, and may not know it exists.
//
//===----------------------------------------------------------------------===//

#include "Config.h"
#include "Window.h"

#include "daydream/Trace/RecordFile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace dd::trace;

bool dd::trace::readConfig(
    const std::function<const char *(const char *)> &Getenv,
    TraceConfig &Config, std::string &Err) {
  TraceConfig C;
  const char *Dir = Getenv(env::OutputDir);
  if (!Dir || !*Dir) {
    Err = std::string(env::OutputDir) +
          " is not set (run the program under dd-trace)";
    return false;
  }
  C.OutputDir = Dir;

  if (const char *Lib = Getenv(env::CuptiLibrary); Lib && *Lib)
    C.CuptiLibrary = Lib;

  if (const char *MiB = Getenv(env::BufferMiB); MiB && *MiB) {
    errno = 0;
    char *End = nullptr;
    unsigned long long V = std::strtoull(MiB, &End, 10);
    if (*MiB < '0' || *MiB > '9' || *End || errno || V == 0 ||
        V > (uint64_t(1) << 20)) {
      Err = std::string("invalid ") + env::BufferMiB + " '" + MiB +
            "': expected a number of MiB from 1 to 1048576";
      return false;
    }
    C.BufferPoolBytes = uint64_t(V) << 20;
  }

  if (const char *Window = Getenv(env::Window); Window && *Window) {
    std::string Why;
    if (!parseWindow(Window, C.WindowFirst, C.WindowLast, Why)) {
      Err = std::string(env::Window) + ": " + Why;
      return false;
    }
    C.HasWindow = true;
  }
  if (const char *Range = Getenv(env::WindowRange))
    C.WindowRange = Range;

  if (const char *Memory = Getenv(env::Memory); Memory && *Memory) {
    if (std::strcmp(Memory, "1") != 0 && std::strcmp(Memory, "0") != 0) {
      Err = std::string("invalid ") + env::Memory + " '" + Memory +
            "': expected 0 or 1";
      return false;
    }
    C.Memory = *Memory == '1';
  }
  Config = std::move(C);
  return true;
}
