//===- Program.h - One training iteration as a list of steps ----*- C++ -*-===//
//
// A family (Families.cpp) writes one iteration of its training loop once, as
// a flat list of operations: open and close a CPU range, launch a kernel,
// copy, synchronize, record or wait for an event, launch a collective, hand
// over to the other thread, spend untraced CPU time. The generator
// (Generator.cpp) then runs that list for every iteration of every rank,
// drawing each duration as it goes. Every rank runs the same list, as in
// SPMD training, so the ranks issue the same collectives in the same order.
//
// Names are indices into Program::Names; the generator interns them first,
// in that order, into every rank's string table, so a name index is also its
// StrId there. Private to lib/Synth.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SYNTH_PROGRAM_H
#define DAYDREAM_LIB_SYNTH_PROGRAM_H

#include "daydream/Import/TraceModel.h"
#include "daydream/Synth/Synth.h"

#include "llvm/ADT/StringMap.h"

#include <array>
#include <string>
#include <vector>

namespace dd::synth {

enum class ThreadRole : uint8_t { Main, Autograd };
constexpr unsigned NumThreadRoles = 2;
/// The default compute stream, and the streams ProcessGroupNCCL runs
/// collectives on: each process group has its own, so the tensor-parallel
/// group's are on another stream than the data-parallel group's (or the
/// world's).
enum class StreamRole : uint8_t { Compute, Comm, TensorParallelComm };
constexpr unsigned NumStreamRoles = 3;

enum class CollectiveKind : uint8_t { AllReduce, AllToAll };
/// Which process group a collective runs on: the data-parallel one (the
/// world when there is no tensor parallelism) or the rank's tensor-parallel
/// one.
enum class GroupRole : uint8_t { DataParallel, TensorParallel };

enum class OpKind : uint8_t {
  Open,       ///< opens a CPU range: Name, Aux = RangeKind
  Close,      ///< closes the innermost open range of the thread
  Launch,     ///< cudaLaunchKernel of kernel Name (MeanNs, Shape)
  Copy,       ///< cudaMemcpyAsync of Bytes, copy Name, Aux = CopyKind
  Sync,       ///< cudaStreamSynchronize(Stream)
  Record,     ///< cudaEventRecord of event Slot on Stream
  Wait,       ///< cudaStreamWaitEvent: Stream waits for event Slot
  Collective, ///< cudaLaunchKernel of NCCL kernel Name (Bytes, Aux = kind,
              ///< Group)
  Switch,     ///< the work moves to thread Aux (a ThreadRole)
  Cpu,        ///< untraced CPU time of about MeanNs
};

struct Op {
  OpKind Kind = OpKind::Cpu;
  uint8_t Aux = 0;
  StreamRole Stream = StreamRole::Compute;
  uint32_t Name = NoId;
  uint32_t Shape = NoId; ///< index into Program::Shapes
  uint32_t Slot = 0;
  int64_t MeanNs = 0;
  uint64_t Bytes = 0;
  GroupRole Group = GroupRole::DataParallel;
};

/// Fixed name indices of the API calls.
enum ApiName : uint32_t {
  LaunchKernelName,
  MemcpyAsyncName,
  StreamSynchronizeName,
  EventRecordName,
  StreamWaitEventName,
  NumApiNames
};

struct Program {
  std::vector<std::string> Names;
  std::vector<TaskAttrs> Shapes;
  /// One iteration, after its ProfilerStep range opens and before it closes.
  std::vector<Op> Ops;
  /// Events recorded per iteration (slots are reused by the next).
  uint32_t NumSlots = 0;
  /// Per iteration: API calls, GPU activities (each call but a sync or an
  /// event call launches one), CPU ranges, sync records, collectives.
  uint64_t Calls = 0, Activities = 0, Ranges = 0, Syncs = 0, Collectives = 0;
  /// Per iteration: pieces of the ranges' self time, each a cpu-op task
  /// (lib/Import/SelfTime.cpp).
  uint64_t Pieces = 0;
  /// Of the collectives, those on the tensor-parallel groups.
  uint64_t TpCollectives = 0;
};

/// Writes a Program; the helpers below it spell the PyTorch idioms every
/// family shares.
class ProgramBuilder {
public:
  /// With \p CountOnly, only the counts of the program are kept (sizing
  /// builds many programs, some of millions of operations).
  /// \p Ranks data-parallel ranks, each a tensor-parallel group of \p Tp.
  explicit ProgramBuilder(unsigned Ranks, bool CountOnly = false,
                          unsigned Tp = 1);

  unsigned ranks() const { return Ranks; }
  unsigned tensorParallel() const { return Tp; }
  uint32_t name(llvm::StringRef S);
  uint32_t shape(std::array<uint32_t, 3> Grid, std::array<uint32_t, 3> Block,
                 uint16_t Registers, uint32_t SharedMem);

  void open(llvm::StringRef Name,
            import::RangeKind Kind = import::RangeKind::Op);
  void close();
  void launch(llvm::StringRef Kernel, double MeanUs, uint32_t Shape);
  void copy(llvm::StringRef Name, uint64_t Bytes, CopyKind Kind);
  void sync(StreamRole S);
  /// Records a new event on \p S and returns its slot.
  uint32_t record(StreamRole S);
  void wait(StreamRole Waiting, uint32_t Slot);
  void collective(CollectiveKind Kind, llvm::StringRef Kernel, uint64_t Bytes,
                  uint32_t Shape, GroupRole Group = GroupRole::DataParallel);
  void onThread(ThreadRole T);
  void cpu(double MeanUs);

  /// An ATen op: its range, and the ranges it calls down to, around
  /// \p Body: op({"aten::linear", "aten::addmm"}, ...).
  template <typename BodyFn>
  void op(std::initializer_list<llvm::StringRef> Ranges, BodyFn Body) {
    for (llvm::StringRef R : Ranges)
      open(R);
    Body();
    for (size_t I = 0; I != Ranges.size(); ++I)
      close();
  }
  /// A module's record_function range (a user annotation): the layer of
  /// what \p Body launches.
  template <typename BodyFn> void module(llvm::StringRef Name, BodyFn Body) {
    open(Name, import::RangeKind::Annotation);
    Body();
    close();
  }
  /// The data loader's next batch: Python time under its annotation.
  void dataLoader(double MeanUs) {
    module("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
           [&] { cpu(MeanUs); });
  }
  /// An op with one kernel.
  void kernelOp(std::initializer_list<llvm::StringRef> Ranges,
                llvm::StringRef Kernel, double MeanUs, uint32_t Shape) {
    op(Ranges, [&] { launch(Kernel, MeanUs, Shape); });
  }
  /// A backward node on the autograd thread, as the engine runs it:
  /// "autograd::engine::evaluate_function: <Node>" > "<Node>" > Body.
  template <typename BodyFn> void backward(llvm::StringRef Node, BodyFn Body) {
    std::string Eval = ("autograd::engine::evaluate_function: " + Node).str();
    op({Eval, Node}, Body);
  }

  /// The batch's host-to-device copy at the start of a step.
  void inputCopy(uint64_t Bytes);
  /// loss.item(): a device-to-host copy of the loss and a synchronize, which
  /// makes the CPU wait for the step's GPU work.
  void lossItem();
  /// F.cross_entropy: a log-softmax over the classes and the NLL loss.
  void crossEntropy(llvm::StringRef LogSoftmax, double LogSoftmaxUs,
                    uint32_t LogSoftmaxShape, llvm::StringRef Nll, double NllUs,
                    uint32_t NllShape);
  /// loss.backward(): after \p PythonUs of Python, the autograd engine's
  /// device thread takes over and runs the loss's backward nodes.
  void beginBackward(double PythonUs, llvm::StringRef NllGrad, double NllUs,
                     uint32_t NllShape, llvm::StringRef LogSoftmaxGrad,
                     double LogSoftmaxUs, uint32_t LogSoftmaxShape);
  /// DistributedDataParallel's all-reduce of one gradient bucket (from the
  /// autograd thread, as the reducer's hook runs): the bucket is divided by
  /// the world size, the NCCL stream waits for the compute stream, the
  /// kernel is launched and an event recorded after it. Returns that
  /// event's slot, which the end of backward waits for.
  uint32_t allReduce(uint64_t Bytes);
  /// torch.distributed.all_to_all_single, waited for at once (DLRM's
  /// embedding exchange): NCCL's send/recv kernel.
  void allToAll(uint64_t Bytes);
  /// Megatron's all-reduce of a row-parallel layer's output across the
  /// tensor-parallel group, waited for at once; nothing without tensor
  /// parallelism.
  void tensorParallelAllReduce(uint64_t Bytes);
  /// DDP's buckets as the gradients of \p Bytes become ready in backward:
  /// the first bucket holds 1 MB, the others 25 MB, as DDP's defaults say.
  /// Call gradientsReady after each layer's backward; flush at the end.
  void gradientsReady(uint64_t Bytes);
  void flushBuckets();
  /// The end of backward: the last bucket is reduced, the compute stream
  /// waits for every bucket's all-reduce (the reducer's finalize_backward)
  /// and the main thread takes over again.
  void endBackward();

  Program take();

private:
  /// Counts \p O and keeps it.
  void add(const Op &O);

  Program P;
  llvm::StringMap<uint32_t> NameIds;
  unsigned Ranks;
  bool CountOnly;
  unsigned Tp;
  ThreadRole Thread = ThreadRole::Main;
  /// Per thread, the ranges open: how many ranges and calls each holds
  /// directly (its self time comes in one piece more than that), and to
  /// check that each closes where it opened.
  std::vector<uint64_t> Children[NumThreadRoles];
  /// Counts a child of the innermost range open on the thread.
  void countChild();
  uint64_t BucketBytes = 0, BucketsDone = 0;
  std::vector<uint32_t> BucketEvents;
};

/// One iteration of \p F with \p Layers layers on a job of \p Ranks ranks
/// (data parallel, with NCCL collectives, when Ranks > 1, in \p Tp-way
/// tensor-parallel groups); with \p CountOnly, its counts without its
/// operations.
Program buildProgram(Family F, unsigned Layers, unsigned Ranks,
                     bool CountOnly = false, unsigned Tp = 1);

void buildCnn(ProgramBuilder &B, unsigned Layers);
void buildTransformer(ProgramBuilder &B, unsigned Layers);
void buildRecommender(ProgramBuilder &B, unsigned Layers);

} // namespace dd::synth

#endif // DAYDREAM_LIB_SYNTH_PROGRAM_H
