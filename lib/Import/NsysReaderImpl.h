//===- NsysReaderImpl.h - State of one nsys export read ---------*- C++ -*-===//
//
// The Nsight Systems front-end is split by what it reads: NsysReader.cpp
// holds the SQLite plumbing, the metadata tables and the entry point,
// NsysActivities.cpp the CUPTI and NVTX event tables. This is the reader
// they share: the open database, the model being filled and the StringIds
// cache. Private to lib/Import.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_NSYSREADERIMPL_H
#define DAYDREAM_LIB_IMPORT_NSYSREADERIMPL_H

#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <sqlite3.h>

#include <limits>
#include <map>
#include <memory>

namespace dd::import::nsys {

struct StmtDeleter {
  void operator()(sqlite3_stmt *S) const { sqlite3_finalize(S); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

/// A row of a scan: columns are numbered as the scan's column list.
class Row {
public:
  explicit Row(sqlite3_stmt *S) : S(S) {}
  bool null(int I) const { return sqlite3_column_type(S, I) == SQLITE_NULL; }
  int64_t i64(int I) const { return sqlite3_column_int64(S, I); }
  /// Whether column I holds an integer or NULL (SQLite keeps what an
  /// INTEGER column cannot store as an integer as text, a fraction or a
  /// blob).
  bool integer(int I) const {
    int T = sqlite3_column_type(S, I);
    return T == SQLITE_INTEGER || T == SQLITE_NULL;
  }
  /// Valid until the next row; the caller interns what it keeps.
  llvm::StringRef text(int I) const {
    const unsigned char *P = sqlite3_column_text(S, I);
    return P ? llvm::StringRef(reinterpret_cast<const char *>(P),
                               sqlite3_column_bytes(S, I))
             : llvm::StringRef();
  }

private:
  sqlite3_stmt *S;
};

/// Clamps a column value into a narrower field, so that a hostile file
/// cannot wrap a count around.
template <typename T> T clampTo(int64_t V) {
  if (V < 0)
    return 0;
  if (static_cast<uint64_t>(V) > std::numeric_limits<T>::max())
    return std::numeric_limits<T>::max();
  return static_cast<T>(V);
}

/// nsys serializes a thread as a GlobalId: hardware and VM ids above bit
/// 48, then the pid in bits 24-47 and the tid in bits 0-23.
inline std::pair<int64_t, int64_t> decodeGlobalTid(int64_t G) {
  return {(G >> 24) & 0xFFFFFF, G & 0xFFFFFF};
}

class Reader {
public:
  Reader(llvm::StringRef Path, sqlite3 *Db) : Path(Path), Db(Db) {}
  llvm::Expected<TraceModel> read();

private:
  llvm::Error error(const llvm::Twine &Msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Path + ": " + Msg);
  }
  llvm::Error sqliteError(int Rc) const;
  llvm::Expected<Stmt> prepare(const llvm::Twine &Sql);
  /// sqlite3_step, under the step budget onProgress() enforces.
  int step(sqlite3_stmt *S);
  static int onProgress(void *Self);
  void noteInvalid(llvm::StringRef Table, bool Events);
  /// Runs F on each row of Table's Columns; a column spelled "?name" may be
  /// missing from the schema (it reads as NULL), and a row whose other
  /// columns hold a NULL is skipped. Columns are integers unless spelled
  /// "name:text"; a row holding anything else in one, or whose "end" is
  /// before its "start", is skipped and counted per table for a warning. A
  /// missing table reads as empty, a view is an error. Events says whether
  /// rows count in Stats.Events and skipped ones in Stats.MissingFields or
  /// Stats.InvalidFields (metadata tables count in neither).
  llvm::Error scan(llvm::StringRef Table,
                   llvm::ArrayRef<llvm::StringRef> Columns,
                   llvm::function_ref<llvm::Error(const Row &)> F,
                   bool Events = true);
  /// The interned StringIds value of Id, or NoId if there is none.
  llvm::Expected<StrId> name(int64_t Id);
  /// Like name(), for a nullable StringIds column.
  llvm::Expected<StrId> name(const Row &R, int I) {
    return R.null(I) ? NoId : name(R.i64(I));
  }
  uint32_t thread(int64_t GlobalTid) {
    auto [Pid, Tid] = decodeGlobalTid(GlobalTid);
    return M.thread(Pid, Tid);
  }
  /// The value an ENUM_* table gives Name, or Default where the export has
  /// no such table.
  llvm::Expected<int64_t> enumValue(llvm::StringRef Table, llvm::StringRef Name,
                                    int64_t Default);

  llvm::Error readProducer();
  llvm::Error readApiCalls(llvm::StringRef Table);
  llvm::Error readKernels();
  llvm::Error readCopiesAndSets();
  llvm::Error readSyncs();
  llvm::Error readNvtx();
  llvm::Error readDevices();
  llvm::Error readThreadNames();

  llvm::StringRef Path;
  sqlite3 *Db;
  TraceModel M;
  llvm::StringSet<> Tables, Views;
  /// Rows skipped for a wrong type or order, by table, in first-seen order.
  llvm::MapVector<std::string, uint64_t, std::map<std::string, unsigned>>
      InvalidRows;
  /// The progress handler runs every ProgressPeriod virtual machine
  /// instructions; a statement that runs MaxPeriodsWithoutRow periods
  /// (about 10^9 instructions, seconds) without a row is interrupted.
  static constexpr int ProgressPeriod = 1000;
  static constexpr uint64_t MaxPeriodsWithoutRow = 1000000;
  uint64_t PeriodsWithoutRow = 0;
  bool TimedOut = false;
  llvm::DenseMap<int64_t, StrId> Names;
  llvm::DenseMap<StrId, ApiKind> ApiKinds;
  Stmt NameQuery;
};

} // namespace dd::import::nsys

#endif // DAYDREAM_LIB_IMPORT_NSYSREADERIMPL_H
