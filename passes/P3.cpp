//===- P3.cpp - Priority-based parameter propagation ----------------------===//
//
// p3{params-mb=M bucket-mb=25 first-bucket-mb=1 gpus=8 gbps=G latency-us=5
//    split=duration slice-mb=4 wait=forward}
//
// P3 (Jayarajan et al., SysML 2019) observes that the next forward pass needs
// the first layers' parameters first, yet backward produces their gradients
// last, so plain data parallelism sends them last. It slices each layer's
// gradients and lets the slices of earlier layers overtake those of later
// ones on the wire, and it lets the next forward start a layer as soon as
// that layer's parameters are synchronized instead of after all of them.
//
// The model: ddp-insert's buckets and ring timing (DataParallel.h), each
// bucket's all-reduce cut into slices of slice-mb on a by-priority lane;
// each slice carries a "priority" note (lower first; the last bucket, i.e.
// the earliest layers, lowest) that dd-sim's note-priority policy reads.
// With wait=forward a bucket's slices hold back the first forward kernel of
// the next step that uses its parameters (found by mirroring the bucket's
// place in backward onto the forward kernels), not the optimizer; the last
// step, having no next forward, keeps the optimizer barrier, as wait=optimizer
// does for every step.
//
//===----------------------------------------------------------------------===//

#include "DataParallel.h"

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace dd;
using namespace dd::dataparallel;

namespace {

struct P3Options {
  Options DP;
  double SliceMb = 4;
  std::string Wait = "forward";
};

void declare(PassOptionParser &P, P3Options &O) {
  declareOptions(P, O.DP);
  P.add("slice-mb", O.SliceMb, "all-reduce slice size in MiB");
  P.add("wait", O.Wait,
        "what waits for a bucket: forward (the next step's first kernel "
        "using it) or optimizer (all of them, as ddp-insert)");
}

llvm::Error validate(const P3Options &O) {
  if (llvm::Error E = validateOptions(O.DP))
    return E;
  // A slice rounded to zero bytes would never finish a bucket.
  if (!(O.SliceMb > 0) || O.SliceMb > MaxMb || mbToBytes(O.SliceMb) == 0)
    return optionError(
        "slice-mb must be at least one byte and at most 1e9 (MiB)");
  if (O.DP.ParamsMb / O.SliceMb > MaxAllReduces)
    return optionError(
        "params-mb / slice-mb is " +
        llvm::formatv("{0:f0}", O.DP.ParamsMb / O.SliceMb).str() +
        " slices; at most 1e6 are modelled");
  if (O.Wait != "forward" && O.Wait != "optimizer")
    return optionError("wait must be 'forward' or 'optimizer', not '" + O.Wait +
                       "'");
  return llvm::Error::success();
}

/// A bucket cut into full slices, then the remainder.
struct Slicing {
  uint64_t Bytes, SliceBytes;

  size_t count() const {
    return size_t(Bytes / SliceBytes) + (Bytes % SliceBytes != 0);
  }
  uint64_t bytesOf(size_t I) const {
    return I < Bytes / SliceBytes ? SliceBytes : Bytes % SliceBytes;
  }
};

/// The priority notes of the inserted slices. Their values are all
/// distinct, so interning them one by one (hashing each, growing the index)
/// cost more than inserting the slices; instead the pass notes them as it
/// goes and adds them at the end, the strings the table lacks appended in
/// one buffer. The table's index is then rebuilt, once, by whoever interns
/// next.
class PriorityNotes {
public:
  void add(TaskId T, int64_t Priority) {
    if (Pending.empty() || Priority < Lowest)
      Lowest = Priority;
    Highest = std::max(Highest, Priority);
    Pending.push_back({T, Priority});
  }

  void addTo(Graph &G) {
    if (Pending.empty())
      return;
    // Before appending: interning rebuilds the index after an append.
    StrId Key = G.intern(PriorityNoteKey);
    std::vector<StrId> Ids = existingIds(G.strings());
    appendMissing(G, Ids);
    for (auto [T, Priority] : Pending)
      G.addNote(TaskNote{T, Key, Ids[size_t(Priority - Lowest)]});
    Pending.clear();
  }

private:
  /// The ids of the values the table already holds, as intern() would
  /// find them (the first of duplicates); NoId for the rest.
  std::vector<StrId> existingIds(const StringTable &Table) const {
    std::vector<StrId> Ids(size_t(Highest - Lowest) + 1, NoId);
    for (StrId Id = 0; Id != Table.size(); ++Id) {
      llvm::StringRef S = Table.get(Id);
      int64_t Value;
      bool Canonical =
          !S.empty() && S.size() <= 19 && (S[0] != '0' || S.size() == 1) &&
          llvm::all_of(S, llvm::isDigit) && !S.getAsInteger(10, Value);
      if (Canonical && Value >= Lowest && Value <= Highest &&
          Ids[size_t(Value - Lowest)] == NoId)
        Ids[size_t(Value - Lowest)] = Id;
    }
    return Ids;
  }

  void appendMissing(Graph &G, std::vector<StrId> &Ids) const {
    std::string Text;
    std::vector<size_t> Ends;
    for (size_t I = 0; I != Ids.size(); ++I)
      if (Ids[I] == NoId) {
        Text += std::to_string(Lowest + int64_t(I));
        Ends.push_back(Text.size());
      }
    if (Ends.empty())
      return;
    auto Buf = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(Text.size());
    std::memcpy(Buf->getBufferStart(), Text.data(), Text.size());
    llvm::StringRef Chars(Buf->getBufferStart(), Text.size());
    G.strings().reserve(G.strings().size() + Ends.size());
    size_t Begin = 0, Next = 0;
    for (size_t I = 0; I != Ids.size(); ++I)
      if (Ids[I] == NoId) {
        size_t End = Ends[Next++];
        Ids[I] = G.strings().appendUnowned(Chars.slice(Begin, End));
        Begin = End;
      }
    G.holdBuffer(std::move(Buf));
  }

  std::vector<std::pair<TaskId, int64_t>> Pending;
  int64_t Lowest = 0, Highest = 0;
};

class P3 {
public:
  static constexpr const char *Name = "p3";
  static constexpr const char *Description =
      "Priority-based parameter propagation: sliced all-reduces scheduled by "
      "layer";
  using OptionsT = P3Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit P3(P3Options O) : O(std::move(O)) {}
  static constexpr bool AddsTasks = true; // the gradient slices' all-reduces

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    if (O.DP.Gpus == 1)
      return PreservedAnalyses::all();
    auto StepsOr = findTrainingSteps(G);
    if (!StepsOr)
      return StepsOr.takeError();
    std::vector<TrainingStep> Steps = std::move(*StepsOr);
    auto TotalOr = parameterBytes(G, O.DP);
    if (!TotalOr)
      return TotalOr.takeError();
    Total = *TotalOr;
    Gbps = ringGbps(G, O.DP);
    Lane = NoId;
    NextPriority = 0;
    Names = AllReduceNames();
    // The next step with forward kernels, for each step.
    std::vector<const TrainingStep *> Next(Steps.size(), nullptr);
    for (size_t I = Steps.size(); I-- > 1;)
      Next[I - 1] = Steps[I].Forward.empty() ? Next[I] : &Steps[I];
    for (size_t I = 0; I != Steps.size(); ++I) {
      if (Steps[I].Backward.empty())
        continue;
      if (Lane == NoId)
        Lane = commLane(G, "p3 allreduce", LaneOrder::ByPriority,
                        Steps[I].Backward.front());
      insertStep(G, Steps[I], O.Wait == "forward" ? Next[I] : nullptr);
    }
    Notes.addTo(G);
    return PreservedAnalyses::none();
  }

private:
  uint64_t total() const { return Total; }
  uint64_t Total = 0;
  bool byDuration() const { return O.DP.Split == "duration"; }

  void insertStep(Graph &G, const TrainingStep &S, const TrainingStep *Next) {
    std::vector<Bucket> Buckets =
        makeBuckets(splitBytes(G, S.Backward, total(), byDuration()),
                    mbToBytes(O.DP.FirstBucketMb), mbToBytes(O.DP.BucketMb));
    // Priorities count up from the last bucket (the earliest layers) to the
    // first, and carry on across steps so an earlier step always wins.
    std::vector<int64_t> FirstPriority(Buckets.size());
    for (size_t B = Buckets.size(); B-- > 0;) {
      FirstPriority[B] = NextPriority;
      NextPriority += int64_t(slicing(Buckets[B]).count());
    }
    std::vector<uint64_t> ForwardUpto;
    if (Next)
      ForwardUpto = forwardOffsets(G, *Next);
    llvm::ArrayRef<TaskId> Barrier = barrierConsumers(S);
    // Slices go on the lane in backward order, which keeps lane order
    // consistent with the edges; the policy, not the list, orders them.
    for (size_t B = 0; B != Buckets.size(); ++B) {
      TaskId FirstUse = Next ? firstUse(*Next, ForwardUpto, Buckets[B]) : NoId;
      llvm::ArrayRef<TaskId> Consumers =
          Next ? llvm::ArrayRef<TaskId>(FirstUse) : Barrier;
      Slicing Cut = slicing(Buckets[B]);
      for (size_t I = 0, N = Cut.count(); I != N; ++I) {
        uint64_t Bytes = Cut.bytesOf(I);
        TaskId T = insertAllReduce(
            G, Lane, S.Backward[Buckets[B].Last], Bytes,
            Names.get(G, B, I, N, Bytes),
            ringAllReduceNs(Bytes, O.DP.Gpus, Gbps, O.DP.LatencyUs), Consumers);
        Notes.add(T, FirstPriority[B] + int64_t(I));
      }
    }
  }

  Slicing slicing(const Bucket &B) const {
    return Slicing{B.Bytes, mbToBytes(O.SliceMb)};
  }

  /// Parameter bytes read up to and including each forward kernel of
  /// \p Next, the kernels given their shares by the same split rule as
  /// backward's.
  std::vector<uint64_t> forwardOffsets(const Graph &G,
                                       const TrainingStep &Next) const {
    std::vector<uint64_t> Upto =
        splitBytes(G, Next.Forward, total(), byDuration());
    for (size_t I = 1; I < Upto.size(); ++I)
      Upto[I] += Upto[I - 1];
    return Upto;
  }

  /// The first forward kernel of \p Next that reads a parameter of \p B.
  /// Forward uses parameters in the reverse of the order backward produces
  /// their gradients, so the bucket's bytes, which end EndBytes into
  /// backward, begin total - EndBytes into forward.
  TaskId firstUse(const TrainingStep &Next, llvm::ArrayRef<uint64_t> Upto,
                  const Bucket &B) const {
    size_t K = llvm::upper_bound(Upto, total() - B.EndBytes) - Upto.begin();
    return Next.Forward[std::min(K, Next.Forward.size() - 1)];
  }

  P3Options O;
  double Gbps = 0;
  LaneId Lane = NoId;
  int64_t NextPriority = 0;
  AllReduceNames Names;
  PriorityNotes Notes;
};

} // namespace

PassInfo dd::passInfoOfP3() { return passInfo<P3>(); }
