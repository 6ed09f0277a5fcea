//===- CuptiRecordReader.cpp - dd-trace's .ddrec files to a TraceModel ----===//
//
// A walk over the frames of each file. Records are copied out of the file
// (which need not be aligned where it lies) into an aligned buffer, their
// string ids turned back into pointers to NUL-terminated copies of the
// strings, and handed to CuptiModelBuilder as the structs CUPTI wrote.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/CuptiRecordReader.h"

#if DAYDREAM_HAVE_CUPTI

#include "daydream/Import/CuptiModelBuilder.h"
#include "daydream/Trace/RecordFile.h"

#include "llvm/ADT/Twine.h"

#include <cstring>
#include <deque>

using namespace dd;
using namespace dd::import;
using namespace dd::trace;
using llvm::Error;
using llvm::StringRef;

namespace {

class FileReader {
public:
  FileReader(const RecordFileInput &In, CuptiModelBuilder &B,
             std::vector<std::string> &Warnings)
      : In(In), B(B), Warnings(Warnings) {}

  Error read();

private:
  Error error(uint64_t Offset, const llvm::Twine &Msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   In.Name + ": at byte " +
                                       llvm::Twine(Offset) + ": " + Msg);
  }
  void warn(const llvm::Twine &Msg) {
    Warnings.push_back((In.Name + ": " + Msg).str());
  }
  Error readHeader();
  Error readFrame(uint64_t Offset, FrameType Type, StringRef Payload);
  Error readRecord(uint64_t Offset, StringRef Payload);
  template <typename T> T take(StringRef Payload) const {
    T V;
    std::memcpy(&V, Payload.data(), sizeof(T));
    return V;
  }

  const RecordFileInput &In;
  CuptiModelBuilder &B;
  std::vector<std::string> &Warnings;
  /// Strings by id - 1; a deque so that pointers into them stay valid.
  std::deque<std::string> Strings;
  bool Ended = false;
  uint64_t Dropped = 0;
};

Error FileReader::readHeader() {
  FileHeader H;
  if (In.Bytes.size() < sizeof(H))
    return error(0, "not a dd-trace record file: only " +
                        llvm::Twine(In.Bytes.size()) + " bytes");
  std::memcpy(&H, In.Bytes.data(), sizeof(H));
  if (std::memcmp(H.Magic, RecordFileMagic, sizeof(H.Magic)) != 0)
    return error(0, "not a dd-trace record file (bad magic)");
  if (H.Version != RecordFileVersion)
    return error(8, "record file version " + llvm::Twine(H.Version) +
                        "; this reader reads version " +
                        llvm::Twine(RecordFileVersion));
  // A CUPTI release may lay its records out anew; what matters is whether
  // the kinds kept are laid out as this build's headers say.
  if (H.LayoutSignature != recordLayoutSignature())
    return error(32, "recorded with CUPTI headers (API version " +
                         llvm::Twine(H.CuptiApiVersion) +
                         ") whose records are laid out differently from "
                         "this build's (API version " +
                         llvm::Twine(CUPTI_API_VERSION) +
                         "); read it with a build against the CUPTI that "
                         "recorded it");
  return Error::success();
}

Error FileReader::readRecord(uint64_t Offset, StringRef Payload) {
  if (Payload.size() < sizeof(uint32_t))
    return error(Offset, "record of " + llvm::Twine(Payload.size()) +
                             " bytes has no kind");
  auto Kind = take<uint32_t>(Payload);
  RecordLayout L = recordLayout(Kind);
  if (L.Size == 0)
    return error(Offset, "record of unknown kind " + llvm::Twine(Kind));
  if (Payload.size() != L.Size)
    return error(Offset, "record of kind " + llvm::Twine(Kind) + " has " +
                             llvm::Twine(Payload.size()) + " bytes; expected " +
                             llvm::Twine(L.Size));
  alignas(8) char Copy[512];
  std::memcpy(Copy, Payload.data(), L.Size);
  for (uint16_t Off : L.StringFields) {
    if (!Off)
      continue;
    uint64_t Id;
    std::memcpy(&Id, Copy + Off, sizeof(Id));
    if (Id > Strings.size())
      return error(Offset, "record names string " + llvm::Twine(Id) +
                               ", which the file has not defined");
    const char *S = Id ? Strings[Id - 1].c_str() : nullptr;
    std::memcpy(Copy + Off, &S, sizeof(S));
  }
  B.add(reinterpret_cast<const CUpti_Activity *>(Copy));
  return Error::success();
}

Error FileReader::readFrame(uint64_t Offset, FrameType Type,
                            StringRef Payload) {
  auto Need = [&](size_t N, const char *What) -> Error {
    if (Payload.size() < N)
      return error(Offset, llvm::Twine(What) + " frame of " +
                               llvm::Twine(Payload.size()) + " bytes");
    return Error::success();
  };
  switch (Type) {
  case FrameType::Record:
    return readRecord(Offset, Payload);
  case FrameType::String: {
    if (Error E = Need(4, "string"))
      return E;
    if (take<uint32_t>(Payload) != Strings.size() + 1)
      return error(Offset, "string " + llvm::Twine(take<uint32_t>(Payload)) +
                               " out of order");
    Strings.emplace_back(Payload.drop_front(4).str());
    return Error::success();
  }
  case FrameType::ApiName:
    if (Error E = Need(8, "API name"))
      return E;
    B.setApiName(take<uint32_t>(Payload), take<uint32_t>(Payload.drop_front(4)),
                 Payload.drop_front(8));
    return Error::success();
  case FrameType::Dropped:
    if (Error E = Need(8, "dropped-records"))
      return E;
    Dropped = take<uint64_t>(Payload);
    return Error::success();
  case FrameType::End:
    Ended = true;
    return Error::success();
  case FrameType::Window:
    if (Error E = Need(16, "window"))
      return E;
    B.setWindowed();
    return Error::success();
  }
  return error(Offset, "unknown frame type " +
                           llvm::Twine(static_cast<uint32_t>(Type)));
}

Error FileReader::read() {
  if (Error E = readHeader())
    return E;
  B.beginProcess();
  StringRef Bytes = In.Bytes;
  uint64_t Offset = sizeof(FileHeader);
  while (Offset < Bytes.size() && !Ended) {
    FrameHeader F;
    if (Bytes.size() - Offset < sizeof(F))
      break;
    std::memcpy(&F, Bytes.data() + Offset, sizeof(F));
    uint64_t Padded = paddedSize(F.Size);
    if (Bytes.size() - Offset - sizeof(F) < Padded)
      break;
    if (Error E = readFrame(Offset, static_cast<FrameType>(F.Type),
                            Bytes.substr(Offset + sizeof(F), F.Size)))
      return E;
    Offset += sizeof(F) + Padded;
  }
  if (!Ended)
    warn("cut short at byte " + llvm::Twine(Offset) +
         " (the traced process ended before dd-trace could finish the "
         "file); records it had not yet written are lost");
  else if (Offset != Bytes.size())
    warn(llvm::Twine(Bytes.size() - Offset) +
         " bytes after the end marker ignored");
  if (Dropped) {
    warn("CUPTI dropped " + llvm::Twine(Dropped) +
         " records because its buffers were full; trace again with a "
         "larger -buffer-mb");
    B.addDropped(Dropped);
  }
  return Error::success();
}

} // namespace

bool dd::import::canReadCuptiRecords() { return true; }

llvm::Expected<TraceModel>
dd::import::readCuptiRecordFiles(llvm::ArrayRef<RecordFileInput> Files,
                                 std::vector<std::string> &Warnings) {
  CuptiModelBuilder B;
  for (const RecordFileInput &In : Files)
    if (Error E = FileReader(In, B, Warnings).read())
      return std::move(E);
  return B.finish();
}

#else // !DAYDREAM_HAVE_CUPTI

bool dd::import::canReadCuptiRecords() { return false; }

llvm::Expected<dd::import::TraceModel>
dd::import::readCuptiRecordFiles(llvm::ArrayRef<RecordFileInput> Files,
                                 std::vector<std::string> &) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      (Files.empty() ? llvm::StringRef("<none>") : Files.front().Name) +
          ": a dd-trace record file, but this build has no CUPTI support "
          "(rebuild with the CUDA Toolkit installed)");
}

#endif
