//===- Window.cpp - Which iterations dd-trace records ---------------------===//
//
// The iteration-name rule lives in isIterationName alone, so that the
// launcher's documentation and this code have one place to agree on.
//
//===----------------------------------------------------------------------===//

#include "Window.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <strings.h>

using namespace dd::trace;

bool dd::trace::isIterationName(const char *Name) {
  if (!Name)
    return false;
  static const char *const Words[] = {"profilerstep", "step", "iteration"};
  for (const char *Word : Words) {
    size_t N = std::strlen(Word);
    if (strncasecmp(Name, Word, N) != 0)
      continue;
    const char *P = Name + N;
    if (*P == ' ' || *P == '_' || *P == '#')
      ++P;
    return *P >= '0' && *P <= '9';
  }
  return false;
}

bool dd::trace::startsIteration(const char *Name, const std::string &Prefix) {
  if (!Name)
    return false;
  if (Prefix.empty())
    return isIterationName(Name);
  return std::strncmp(Name, Prefix.data(), Prefix.size()) == 0;
}

static bool parseIndex(const char *Begin, const char *End, uint32_t &Out) {
  if (Begin == End || *Begin < '0' || *Begin > '9')
    return false;
  errno = 0;
  char *Stop = nullptr;
  unsigned long long V = std::strtoull(Begin, &Stop, 10);
  if (Stop != End || errno != 0 || V > UINT32_MAX - 2)
    return false;
  Out = uint32_t(V);
  return true;
}

bool dd::trace::parseWindow(const char *Text, uint32_t &First, uint32_t &Last,
                            std::string &Err) {
  const char *Colon = Text ? std::strchr(Text, ':') : nullptr;
  if (!Colon || !parseIndex(Text, Colon, First) ||
      !parseIndex(Colon + 1, Colon + std::strlen(Colon), Last)) {
    Err = std::string("invalid window '") + (Text ? Text : "") +
          "': expected FIRST:LAST, two iteration indices from 0";
    return false;
  }
  if (First > Last) {
    Err = std::string("invalid window '") + Text + "': FIRST is after LAST";
    return false;
  }
  return true;
}

IterationWindow::Step IterationWindow::onRangeStart(const char *Name) {
  if (done() || !startsIteration(Name, Prefix))
    return Step::None;
  uint64_t Index = Seen++;
  if (Index == First)
    return Step::Open;
  if (Index == uint64_t(Last) + 1)
    return Step::Close;
  if (Index == uint64_t(Last) + 2)
    return Step::Drain;
  return Step::None;
}
