//===- NsysReader.cpp - Nsight Systems SQLite front-end -------------------===//
//
// Opens an `nsys export --type sqlite` database read-only, tells a file
// that is no SQLite database, no nsys export or a damaged one apart, and
// reads the metadata tables (export producer, GPUs, thread names). Column
// lists are matched against each table's real schema, so an optional
// column an older nsys lacks reads as NULL while a missing required one is
// an error. Names are StringIds references: each id is looked up and
// interned once, whatever the number of rows that use it.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/NsysReader.h"
#include "NsysReaderImpl.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

using namespace dd;
using namespace dd::import;
using namespace dd::import::nsys;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
struct DbDeleter {
  void operator()(sqlite3 *D) const { sqlite3_close_v2(D); }
};
} // namespace

Error Reader::sqliteError(int Rc) const {
  const char *Msg = sqlite3_errmsg(Db);
  switch (Rc & 0xFF) {
  case SQLITE_INTERRUPT:
    if (TimedOut)
      return error(
          llvm::Twine("a query ran ") +
          llvm::Twine(uint64_t(MaxPeriodsWithoutRow) * ProgressPeriod) +
          " SQLite steps without returning a row; the file is "
          "damaged or hostile");
    break;
  case SQLITE_NOTADB:
    return error("not an SQLite database");
  case SQLITE_CORRUPT:
    return error(llvm::Twine("corrupt SQLite database: ") + Msg);
  case SQLITE_IOERR:
    // A page past the end of a truncated file is a short read.
    if (Rc == SQLITE_IOERR_SHORT_READ)
      return error(llvm::Twine("corrupt SQLite database: ") + Msg);
    break;
  default:
    break;
  }
  return error(llvm::Twine("cannot read SQLite database: ") + Msg);
}

Expected<Stmt> Reader::prepare(const llvm::Twine &Sql) {
  llvm::SmallString<256> Buf;
  StringRef S = Sql.toStringRef(Buf);
  sqlite3_stmt *Raw = nullptr;
  int Rc = sqlite3_prepare_v2(Db, S.data(), int(S.size()), &Raw, nullptr);
  Stmt Result(Raw);
  if (Rc != SQLITE_OK)
    return sqliteError(Rc);
  return std::move(Result);
}

Error Reader::scan(StringRef Table, llvm::ArrayRef<StringRef> Columns,
                   llvm::function_ref<Error(const Row &)> F, bool Events) {
  if (Views.count(Table))
    return error(Table + " is a view, not a table (an nsys export has no "
                         "views; a view runs a query the file defines)");
  if (!Tables.count(Table))
    return Error::success();
  auto Info = prepare("SELECT name FROM pragma_table_info('" + Table + "')");
  if (!Info)
    return Info.takeError();
  llvm::StringSet<> Present;
  int Rc;
  while ((Rc = step(Info->get())) == SQLITE_ROW)
    Present.insert(Row(Info->get()).text(0));
  if (Rc != SQLITE_DONE)
    return sqliteError(Rc);

  std::string Sql = "SELECT ";
  llvm::SmallVector<int, 16> Required, Integers;
  int Start = -1, End = -1;
  for (size_t I = 0; I < Columns.size(); ++I) {
    StringRef Name = Columns[I];
    bool Optional = Name.consume_front("?");
    bool Text = Name.consume_back(":text");
    if (I)
      Sql += ", ";
    if (Present.count(Name))
      Sql += ("\"" + Name + "\"").str();
    else if (Optional)
      Sql += "NULL";
    else
      return error("table " + Table + " has no column '" + Name + "'");
    if (!Optional)
      Required.push_back(int(I));
    if (!Text)
      Integers.push_back(int(I));
    if (Name == "start")
      Start = int(I);
    else if (Name == "end")
      End = int(I);
  }
  auto Query = prepare(Sql + " FROM \"" + Table + "\"");
  if (!Query)
    return Query.takeError();
  Row R(Query->get());
  while ((Rc = step(Query->get())) == SQLITE_ROW) {
    if (Events)
      ++M.Stats.Events;
    if (llvm::any_of(Required, [&](int I) { return R.null(I); })) {
      M.Stats.MissingFields += Events;
      continue;
    }
    // SQLite keeps what it cannot store as an integer in an INTEGER column
    // as text or a fraction, which sqlite3_column_int64 would read as 0 or
    // truncate; and an interval cannot end before it starts.
    if (llvm::any_of(Integers, [&](int I) { return !R.integer(I); }) ||
        (Start >= 0 && End >= 0 && !R.null(End) && R.i64(End) < R.i64(Start))) {
      noteInvalid(Table, Events);
      continue;
    }
    if (Error E = F(R))
      return E;
  }
  return Rc == SQLITE_DONE ? Error::success() : sqliteError(Rc);
}

void Reader::noteInvalid(StringRef Table, bool Events) {
  if (Events)
    ++M.Stats.InvalidFields;
  ++InvalidRows[Table.str()];
}

int Reader::step(sqlite3_stmt *S) {
  PeriodsWithoutRow = 0;
  int Rc = sqlite3_step(S);
  if ((Rc & 0xFF) == SQLITE_INTERRUPT &&
      PeriodsWithoutRow > MaxPeriodsWithoutRow)
    TimedOut = true;
  return Rc;
}

int Reader::onProgress(void *Self) {
  auto *R = static_cast<Reader *>(Self);
  return ++R->PeriodsWithoutRow > MaxPeriodsWithoutRow;
}

Expected<StrId> Reader::name(int64_t Id) {
  // DenseMap reserves two keys; only a forged file would use them as ids.
  using Info = llvm::DenseMapInfo<int64_t>;
  if (Id == Info::getEmptyKey() || Id == Info::getTombstoneKey() ||
      !Tables.count("StringIds"))
    return NoId;
  auto [It, New] = Names.try_emplace(Id, NoId);
  if (!New)
    return It->second;
  if (!NameQuery) {
    auto Q = prepare("SELECT value FROM StringIds WHERE id = ?1");
    if (!Q)
      return Q.takeError();
    NameQuery = std::move(*Q);
  }
  sqlite3_stmt *S = NameQuery.get();
  sqlite3_reset(S);
  sqlite3_bind_int64(S, 1, Id);
  int Rc = step(S);
  StrId Result = NoId;
  if (Rc == SQLITE_ROW && sqlite3_column_type(S, 0) != SQLITE_NULL)
    Result = M.Strings.intern(Row(S).text(0));
  else if (Rc != SQLITE_ROW && Rc != SQLITE_DONE)
    return sqliteError(Rc);
  It->second = Result;
  return Result;
}

/// Newer exports carry ENUM_* tables naming nsys's enum values; older ones
/// (such as 2022.2) do not, and the values have not changed.
Expected<int64_t> Reader::enumValue(StringRef Table, StringRef Name,
                                    int64_t Default) {
  int64_t Value = Default;
  Error E = scan(
      Table, {"id", "name:text"},
      [&](const Row &R) {
        if (R.text(1) == Name)
          Value = R.i64(0);
        return Error::success();
      },
      /*Events=*/false);
  if (E)
    return std::move(E);
  return Value;
}

Error Reader::readProducer() {
  std::string Product, Version;
  Error E = scan(
      "EXPORT_META_DATA", {"name:text", "value:text"},
      [&](const Row &R) {
        if (R.text(0) == "EXPORT_PRODUCT_NAME")
          Product = repairedUtf8(R.text(1));
        else if (R.text(0) == "EXPORT_PRODUCT_VERSION")
          Version = repairedUtf8(R.text(1));
        return Error::success();
      },
      /*Events=*/false);
  if (Product.empty())
    Product = "NVIDIA Nsight Systems";
  M.Meta.Producer = Version.empty() ? Product : Product + " " + Version;
  return E;
}

Error Reader::readDevices() {
  // TARGET_INFO_GPU describes each GPU under nsys's own id. Kernels name
  // the CUDA ordinal the process saw: the GPU row's cuDevice in older
  // exports, TARGET_INFO_CUDA_DEVICE's (gpuId -> cudaId) in newer ones.
  llvm::DenseMap<int64_t, size_t> ByGpuId;
  std::vector<Device> Gpus;
  if (Error E = scan(
          "TARGET_INFO_GPU",
          {"id", "?cuDevice", "?name:text", "?smCount", "?totalMemory",
           "?memoryBandwidth"},
          [&](const Row &R) {
            if (!ByGpuId.try_emplace(R.i64(0), Gpus.size()).second)
              return Error::success();
            Device D;
            D.Index = clampTo<int32_t>(R.null(1) ? R.i64(0) : R.i64(1));
            D.Name = repairedUtf8(R.text(2));
            D.SmCount = clampTo<int32_t>(R.i64(3));
            D.MemoryBytes = clampTo<uint64_t>(R.i64(4));
            D.MemoryBandwidthGBps = double(clampTo<uint64_t>(R.i64(5))) / 1e9;
            Gpus.push_back(std::move(D));
            return Error::success();
          },
          /*Events=*/false))
    return E;

  // A helper process may see another GPU under the same ordinal: prefer
  // the mapping of a process whose threads made the calls read.
  llvm::DenseSet<int64_t> Pids;
  for (const ThreadInfo &T : M.Threads)
    Pids.insert(T.Pid);
  llvm::DenseMap<int64_t, std::pair<Device, bool>> ByOrdinal;
  if (Error E = scan(
          "TARGET_INFO_CUDA_DEVICE",
          {"cudaId", "?gpuId", "?pid", "?numMultiprocessors"},
          [&](const Row &R) {
            bool Traced = !R.null(2) && Pids.count(R.i64(2));
            auto [It, New] = ByOrdinal.try_emplace(R.i64(0));
            if (!New && (It->second.second || !Traced))
              return Error::success();
            Device D;
            auto G = R.null(1) ? ByGpuId.end() : ByGpuId.find(R.i64(1));
            if (G != ByGpuId.end())
              D = Gpus[G->second];
            D.Index = clampTo<int32_t>(R.i64(0));
            if (!D.SmCount)
              D.SmCount = clampTo<int32_t>(R.i64(3));
            It->second = {std::move(D), Traced};
            return Error::success();
          },
          /*Events=*/false))
    return E;

  if (ByOrdinal.empty()) {
    M.Meta.Devices = std::move(Gpus);
  } else {
    for (auto &[Ordinal, Entry] : ByOrdinal)
      M.Meta.Devices.push_back(std::move(Entry.first));
  }
  llvm::sort(M.Meta.Devices, [](const Device &A, const Device &B) {
    return A.Index < B.Index;
  });
  return Error::success();
}

Error Reader::readThreadNames() {
  // Only threads that did something get a name: nsys also names its own
  // helper threads, which would otherwise become empty lanes.
  llvm::DenseMap<std::pair<int64_t, int64_t>, uint32_t> Index;
  for (uint32_t I = 0; I < M.Threads.size(); ++I)
    Index[{M.Threads[I].Pid, M.Threads[I].Tid}] = I;
  return scan(
      "ThreadNames", {"nameId", "globalTid"},
      [&](const Row &R) -> Error {
        auto It = Index.find(decodeGlobalTid(R.i64(1)));
        if (It == Index.end() || M.Threads[It->second].Name != NoId)
          return Error::success();
        Expected<StrId> Name = name(R.i64(0));
        if (!Name)
          return Name.takeError();
        M.Threads[It->second].Name = *Name;
        return Error::success();
      },
      /*Events=*/false);
}

Expected<TraceModel> Reader::read() {
  sqlite3_extended_result_codes(Db, 1);
  // The schema of a file from elsewhere is not trusted to run functions.
  sqlite3_db_config(Db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(Db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);

  // No statement of a sound export runs long without a row; one that does
  // walks a damaged or hostile file (a view's recursive query, a forged
  // b-tree) and is stopped.
  sqlite3_progress_handler(Db, ProgressPeriod, &Reader::onProgress, this);

  auto Master =
      prepare("SELECT name, type FROM sqlite_master WHERE type IN ('table', "
              "'view')");
  if (!Master)
    return Master.takeError();
  int Rc;
  bool Cupti = false;
  while ((Rc = step(Master->get())) == SQLITE_ROW) {
    Row R(Master->get());
    StringRef Name = R.text(0);
    if (R.text(1) == "view") {
      Views.insert(Name);
      continue;
    }
    Cupti |= Name.startswith("CUPTI_ACTIVITY_KIND_");
    Tables.insert(Name);
  }
  if (Rc != SQLITE_DONE)
    return sqliteError(Rc);
  if (!Cupti && !Tables.count("StringIds"))
    return error("not an Nsight Systems export (no StringIds table)");

  M.Meta.SourceFormat = "nsys";
  for (auto Step :
       {&Reader::readProducer, &Reader::readKernels, &Reader::readCopiesAndSets,
        &Reader::readSyncs, &Reader::readNvtx})
    if (Error E = (this->*Step)())
      return std::move(E);
  for (StringRef Table :
       {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"})
    if (Error E = readApiCalls(Table))
      return std::move(E);
  // Both need the threads the events above created.
  if (Error E = readDevices())
    return std::move(E);
  if (Error E = readThreadNames())
    return std::move(E);
  NameQuery.reset();
  for (const auto &[Table, Rows] : InvalidRows)
    M.Warnings.push_back((Path + ": " + Table + ": " + llvm::Twine(Rows) +
                          (Rows == 1 ? " row" : " rows") +
                          " skipped: a value of the wrong type (text or "
                          "a fraction where nsys writes an integer) or an end "
                          "before the start")
                             .str());
  return std::move(M);
}

/// SQLite would take an empty file for an empty database and report other
/// non-databases only at the first query; the 16-byte magic says it first.
static Error checkMagic(StringRef Path) {
  auto Fail = [&](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Path + ": " + Msg);
  };
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return Fail(EC.message());
  if (Status.type() == llvm::sys::fs::file_type::directory_file)
    return Fail("is a directory");
  Expected<llvm::sys::fs::file_t> File =
      llvm::sys::fs::openNativeFileForRead(Path);
  if (!File)
    return Fail(llvm::toString(File.takeError()));
  char Magic[16] = {};
  Expected<size_t> N = llvm::sys::fs::readNativeFileSlice(
      *File, llvm::MutableArrayRef<char>(Magic), 0);
  llvm::sys::fs::closeFile(*File);
  if (!N)
    return Fail(llvm::toString(N.takeError()));
  if (*N != sizeof(Magic) ||
      StringRef(Magic, sizeof(Magic)) != StringRef("SQLite format 3\0", 16))
    return Fail("not an SQLite database");
  return Error::success();
}

/// An SQLite URI naming \p Path read-only and immutable; '%', '?' and '#'
/// in the path are escaped, and a relative path stays relative.
static std::string fileUri(StringRef Path) {
  std::string Uri = "file:";
  // "file:" followed by "//" would start an authority.
  if (Path.startswith("//"))
    Uri += "//localhost";
  for (char C : Path) {
    if (C == '%' || C == '?' || C == '#')
      Uri += (C == '%' ? "%25" : C == '?' ? "%3F" : "%23");
    else
      Uri += C;
  }
  return Uri + "?immutable=1";
}

Expected<TraceModel> dd::import::readNsysTrace(StringRef Path) {
  if (Error E = checkMagic(Path))
    return std::move(E);
  // Immutable: SQLite then takes no lock and never creates a -wal or -shm
  // file beside the input, even for a WAL-mode database in a folder that
  // is not the user's. The price is that a -wal file left beside it by a
  // writer that did not finish is not read; the reader says so.
  sqlite3 *Raw = nullptr;
  std::string Uri = fileUri(Path);
  int Rc = sqlite3_open_v2(Uri.c_str(), &Raw,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  std::unique_ptr<sqlite3, DbDeleter> Db(Raw);
  if (Rc != SQLITE_OK)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        Path + ": cannot open SQLite database: " +
            (Raw ? sqlite3_errmsg(Raw) : sqlite3_errstr(Rc)));
  Expected<TraceModel> M = Reader(Path, Db.get()).read();
  uint64_t WalSize = 0;
  if (M && !llvm::sys::fs::file_size(Path + "-wal", WalSize) && WalSize)
    M->Warnings.push_back((Path + ": " + Path +
                           "-wal holds changes not yet in the database; "
                           "they are not read (open the database once with "
                           "sqlite3 to fold them in)")
                              .str());
  return M;
}
