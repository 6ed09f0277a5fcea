//===- GzipForTest.h - Gzip members made with zlib for tests ----*- C++ -*-===//

#ifndef DAYDREAM_UNITTESTS_IMPORT_GZIPFORTEST_H
#define DAYDREAM_UNITTESTS_IMPORT_GZIPFORTEST_H

#include "llvm/ADT/StringRef.h"

#include "gtest/gtest.h"

#include <string>
#include <zlib.h>

namespace dd::import::test {

/// \p Text as a gzip member, compressed with zlib.
inline std::string gzipOf(llvm::StringRef Text) {
  z_stream Z{};
  EXPECT_EQ(
      deflateInit2(&Z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
      Z_OK);
  std::string Out(deflateBound(&Z, Text.size()) + 32, '\0');
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(Text.data()));
  Z.avail_in = Text.size();
  Z.next_out = reinterpret_cast<Bytef *>(Out.data());
  Z.avail_out = Out.size();
  EXPECT_EQ(deflate(&Z, Z_FINISH), Z_STREAM_END);
  Out.resize(Z.total_out);
  deflateEnd(&Z);
  return Out;
}

} // namespace dd::import::test

#endif // DAYDREAM_UNITTESTS_IMPORT_GZIPFORTEST_H
