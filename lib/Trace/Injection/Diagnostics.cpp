//===- Diagnostics.cpp - dd-trace's messages from inside a process --------===//
//
// One write() per line; a short or failed write is given up on, since the
// traced program must not stall or fail because its stderr is closed.
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"

#include <cerrno>
#include <unistd.h>

void dd::trace::diagnose(const std::string &Message) {
  std::string Line = "dd-trace: " + Message + "\n";
  const char *P = Line.data();
  size_t Left = Line.size();
  while (Left) {
    ssize_t N = ::write(STDERR_FILENO, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    P += N;
    Left -= size_t(N);
  }
}
