//===- Program.cpp - Writing one training iteration -----------------------===//
//
// The builder's primitives count what they add (calls, GPU activities,
// ranges), which is how planJob() knows a graph's size before making it.
// Its helpers are the idioms of a PyTorch training step that every family
// shares: the input copy, loss.item(), and DistributedDataParallel's
// gradient buckets and their NCCL all-reduces, spelled as the profiler
// records them (record_function ranges "nccl:all_reduce" and
// "record_param_comms"; the event the NCCL stream waits for; the event the
// end of backward waits for).
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <cassert>
#include <cmath>

using namespace dd;
using namespace dd::synth;
using llvm::StringRef;

ProgramBuilder::ProgramBuilder(unsigned Ranks, bool CountOnly, unsigned Tp)
    : Ranks(Ranks), CountOnly(CountOnly), Tp(Tp) {
  // The API names come first, so that their indices are the ApiName enum.
  for (StringRef Api :
       {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaStreamSynchronize",
        "cudaEventRecord", "cudaStreamWaitEvent"})
    name(Api);
}

uint32_t ProgramBuilder::name(StringRef S) {
  if (CountOnly)
    return 0;
  auto [It, New] = NameIds.try_emplace(S, uint32_t(P.Names.size()));
  if (New)
    P.Names.push_back(S.str());
  return It->second;
}

uint32_t ProgramBuilder::shape(std::array<uint32_t, 3> Grid,
                               std::array<uint32_t, 3> Block,
                               uint16_t Registers, uint32_t SharedMem) {
  TaskAttrs A;
  for (unsigned I = 0; I != 3; ++I) {
    A.Grid[I] = Grid[I];
    A.Block[I] = Block[I];
  }
  A.RegistersPerThread = Registers;
  A.SharedMemBytes = SharedMem;
  for (uint32_t I = 0; I != P.Shapes.size(); ++I)
    if (P.Shapes[I] == A)
      return I;
  P.Shapes.push_back(A);
  return uint32_t(P.Shapes.size() - 1);
}

static int64_t toNs(double Us) { return int64_t(std::llround(Us * 1000)); }

void ProgramBuilder::countChild() {
  std::vector<uint64_t> &Open = Children[unsigned(Thread)];
  if (!Open.empty())
    ++Open.back();
}

void ProgramBuilder::add(const Op &O) {
  // Every call is a child of the range it is in.
  if (O.Kind != OpKind::Open && O.Kind != OpKind::Close &&
      O.Kind != OpKind::Switch && O.Kind != OpKind::Cpu)
    countChild();
  switch (O.Kind) {
  case OpKind::Open:
    countChild();
    Children[unsigned(Thread)].push_back(0);
    ++P.Ranges;
    break;
  case OpKind::Close:
    assert(!Children[unsigned(Thread)].empty() &&
           "no range open on this thread");
    // The range's self time: a piece before its first child, one after
    // each (the generator leaves CPU time at both ends of every range and
    // before every event).
    P.Pieces += 1 + Children[unsigned(Thread)].back();
    Children[unsigned(Thread)].pop_back();
    break;
  case OpKind::Collective:
    ++P.Collectives;
    P.TpCollectives += O.Group == GroupRole::TensorParallel;
    [[fallthrough]];
  case OpKind::Launch:
  case OpKind::Copy:
    ++P.Calls;
    ++P.Activities;
    break;
  case OpKind::Sync:
  case OpKind::Wait:
    ++P.Calls;
    ++P.Syncs;
    break;
  case OpKind::Record:
    ++P.Calls;
    break;
  case OpKind::Switch:
  case OpKind::Cpu:
    break;
  }
  if (!CountOnly)
    P.Ops.push_back(O);
}

/// An operation of kind \p Kind; the primitives below fill in the rest.
static Op makeOp(OpKind Kind, uint32_t Name = NoId) {
  Op O;
  O.Kind = Kind;
  O.Name = Name;
  return O;
}

void ProgramBuilder::open(StringRef Name, import::RangeKind Kind) {
  Op O = makeOp(OpKind::Open, name(Name));
  O.Aux = uint8_t(Kind);
  add(O);
}

void ProgramBuilder::close() { add(makeOp(OpKind::Close)); }

void ProgramBuilder::launch(StringRef Kernel, double MeanUs, uint32_t Shape) {
  Op O = makeOp(OpKind::Launch, name(Kernel));
  O.MeanNs = toNs(MeanUs);
  O.Shape = Shape;
  add(O);
}

void ProgramBuilder::copy(StringRef Name, uint64_t Bytes, CopyKind Kind) {
  Op O = makeOp(OpKind::Copy, name(Name));
  O.Aux = uint8_t(Kind);
  O.Bytes = Bytes;
  add(O);
}

void ProgramBuilder::sync(StreamRole S) {
  Op O = makeOp(OpKind::Sync);
  O.Stream = S;
  add(O);
}

uint32_t ProgramBuilder::record(StreamRole S) {
  Op O = makeOp(OpKind::Record);
  O.Stream = S;
  O.Slot = P.NumSlots++;
  add(O);
  return O.Slot;
}

void ProgramBuilder::wait(StreamRole Waiting, uint32_t Slot) {
  Op O = makeOp(OpKind::Wait);
  O.Stream = Waiting;
  O.Slot = Slot;
  add(O);
}

void ProgramBuilder::collective(CollectiveKind Kind, StringRef Kernel,
                                uint64_t Bytes, uint32_t Shape,
                                GroupRole Group) {
  Op O = makeOp(OpKind::Collective, name(Kernel));
  O.Aux = uint8_t(Kind);
  O.Group = Group;
  O.Stream = Group == GroupRole::TensorParallel ? StreamRole::TensorParallelComm
                                                : StreamRole::Comm;
  // Whole float elements: the trace gives a collective's size as an element
  // count and a dtype.
  O.Bytes = std::max<uint64_t>(4, Bytes / 4 * 4);
  O.Shape = Shape;
  add(O);
}

void ProgramBuilder::onThread(ThreadRole T) {
  if (T == Thread)
    return;
  assert(Children[unsigned(Thread)].empty() &&
         "ranges open across a hand-over");
  Thread = T;
  Op O = makeOp(OpKind::Switch);
  O.Aux = uint8_t(T);
  add(O);
}

void ProgramBuilder::cpu(double MeanUs) {
  Op O = makeOp(OpKind::Cpu);
  O.MeanNs = toNs(MeanUs);
  add(O);
}

void ProgramBuilder::inputCopy(uint64_t Bytes) {
  op({"aten::to", "aten::_to_copy", "aten::copy_"}, [&] {
    copy("Memcpy HtoD (Pinned -> Device)", Bytes, CopyKind::HostToDevice);
  });
}

void ProgramBuilder::lossItem() {
  op({"aten::item", "aten::_local_scalar_dense"}, [&] {
    copy("Memcpy DtoH (Device -> Pinned)", 4, CopyKind::DeviceToHost);
    sync(StreamRole::Compute);
  });
}

void ProgramBuilder::crossEntropy(StringRef LogSoftmax, double LogSoftmaxUs,
                                  uint32_t LogSoftmaxShape, StringRef Nll,
                                  double NllUs, uint32_t NllShape) {
  op({"aten::cross_entropy_loss"}, [&] {
    kernelOp({"aten::log_softmax", "aten::_log_softmax"}, LogSoftmax,
             LogSoftmaxUs, LogSoftmaxShape);
    kernelOp({"aten::nll_loss_nd", "aten::nll_loss_forward"}, Nll, NllUs,
             NllShape);
  });
}

void ProgramBuilder::beginBackward(double PythonUs, StringRef NllGrad,
                                   double NllUs, uint32_t NllShape,
                                   StringRef LogSoftmaxGrad,
                                   double LogSoftmaxUs,
                                   uint32_t LogSoftmaxShape) {
  cpu(PythonUs);
  onThread(ThreadRole::Autograd);
  backward("NllLossBackward0", [&] {
    kernelOp({"aten::nll_loss_backward"}, NllGrad, NllUs, NllShape);
  });
  backward("LogSoftmaxBackward0", [&] {
    kernelOp({"aten::_log_softmax_backward_data"}, LogSoftmaxGrad, LogSoftmaxUs,
             LogSoftmaxShape);
  });
}

/// The NCCL kernel of an all-reduce of \p Bytes on \p Ranks ranks, as NCCL
/// 2.1x names it: the low-latency protocols for small messages, trees
/// across nodes.
static std::string allReduceKernel(uint64_t Bytes, unsigned Ranks) {
  const char *Algo = Ranks > 8 && Bytes <= (4u << 20) ? "TREE" : "RING";
  const char *Proto = Bytes <= (256u << 10) ? "LL"
                      : Bytes <= (8u << 20) ? "LL128"
                                            : "SIMPLE";
  return std::string("ncclKernel_AllReduce_") + Algo + "_" + Proto +
         "_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
}

uint32_t ProgramBuilder::allReduce(uint64_t Bytes) {
  // The reducer divides the bucket by the world size before reducing it.
  uint32_t Elementwise =
      shape({uint32_t(std::min<uint64_t>(65535, Bytes / 4 / 512 + 1)), 1, 1},
            {128, 1, 1}, 26, 0);
  kernelOp({"aten::div_"},
           "void at::native::vectorized_elementwise_kernel<4, "
           "at::native::BinaryFunctor<float, float, float, "
           "at::native::binary_internal::DivFunctor<float> >, "
           "at::detail::Array<char*, 3> >(int, "
           "at::native::BinaryFunctor<float, float, float, "
           "at::native::binary_internal::DivFunctor<float> >, "
           "at::detail::Array<char*, 3>)",
           2.0 + double(Bytes) / 1.2e6, Elementwise);
  open("nccl:all_reduce", import::RangeKind::Annotation);
  open("record_param_comms");
  uint32_t Ready = record(StreamRole::Compute);
  wait(StreamRole::Comm, Ready);
  collective(CollectiveKind::AllReduce, allReduceKernel(Bytes, Ranks), Bytes,
             shape({Ranks > 8 ? 16u : 8u, 1, 1}, {544, 1, 1}, 96, 87568));
  uint32_t Done = record(StreamRole::Comm);
  close();
  close();
  return Done;
}

void ProgramBuilder::allToAll(uint64_t Bytes) {
  open("nccl:all_to_all", import::RangeKind::Annotation);
  open("record_param_comms");
  uint32_t Ready = record(StreamRole::Compute);
  wait(StreamRole::Comm, Ready);
  collective(
      CollectiveKind::AllToAll,
      "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, "
      "unsigned long, ncclWork*)",
      Bytes,
      shape({uint32_t(std::min(Ranks, 32u)), 1, 1}, {256, 1, 1}, 72, 16384));
  uint32_t Done = record(StreamRole::Comm);
  close();
  close();
  // work.wait(): what follows on the compute stream uses the result.
  wait(StreamRole::Compute, Done);
}

void ProgramBuilder::tensorParallelAllReduce(uint64_t Bytes) {
  if (Tp < 2)
    return;
  open("nccl:all_reduce", import::RangeKind::Annotation);
  open("record_param_comms");
  uint32_t Ready = record(StreamRole::Compute);
  wait(StreamRole::TensorParallelComm, Ready);
  collective(CollectiveKind::AllReduce, allReduceKernel(Bytes, Tp), Bytes,
             shape({8u, 1, 1}, {544, 1, 1}, 96, 87568),
             GroupRole::TensorParallel);
  uint32_t Done = record(StreamRole::TensorParallelComm);
  close();
  close();
  wait(StreamRole::Compute, Done);
}

void ProgramBuilder::gradientsReady(uint64_t Bytes) {
  if (Ranks < 2)
    return;
  BucketBytes += Bytes;
  // DDP's first bucket is small, so that communication starts early.
  uint64_t Cap = BucketsDone == 0 ? (1u << 20) : (25u << 20);
  if (BucketBytes < Cap)
    return;
  BucketEvents.push_back(allReduce(BucketBytes));
  BucketBytes = 0;
  ++BucketsDone;
}

void ProgramBuilder::flushBuckets() {
  if (Ranks < 2 || BucketBytes == 0)
    return;
  BucketEvents.push_back(allReduce(BucketBytes));
  BucketBytes = 0;
  ++BucketsDone;
}

void ProgramBuilder::endBackward() {
  flushBuckets();
  for (uint32_t Slot : BucketEvents)
    wait(StreamRole::Compute, Slot);
  BucketEvents.clear();
  BucketsDone = 0;
  onThread(ThreadRole::Main);
}

Program ProgramBuilder::take() {
  assert(Thread == ThreadRole::Main && "an iteration ends on the main thread");
  assert(Children[0].empty() && Children[1].empty() && "ranges left open");
  return std::move(P);
}

Program dd::synth::buildProgram(Family F, unsigned Layers, unsigned Ranks,
                                bool CountOnly, unsigned Tp) {
  ProgramBuilder B(Ranks / Tp, CountOnly, Tp);
  switch (F) {
  case Family::Cnn:
    buildCnn(B, Layers);
    break;
  case Family::Transformer:
    buildTransformer(B, Layers);
    break;
  case Family::Recommender:
    buildRecommender(B, Layers);
    break;
  }
  return B.take();
}
