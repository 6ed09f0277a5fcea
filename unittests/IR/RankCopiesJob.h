//===- RankCopiesJob.h - One small job, with rank copies and whole -*- C++
//-*-===//
//
// Four ranks of a data-parallel step, each a CPU thread launching a gemm and
// an all-reduce onto its GPU stream: ranks 0 and 1 stored whole (rank 1's
// gemm is slower, so the two differ), ranks 2 and 3 stored as copies of
// rank 0. A job-level barrier (a lane of rank -1) joins the four all-reduces
// through edges from each rank. Rank 0 has notes, attributes, a layer and
// memory events; the job has a host memory event of its own.
//
// WholeJob is the same job with ranks 2 and 3 written out by hand, task by
// task, in the order expandRankCopies() adds them (each copy in turn, its
// representative's tasks lane by lane), so that both print the same
// canonical text. The IR and the simulator tests share them.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_RANKCOPIESJOB_H
#define DAYDREAM_UNITTESTS_RANKCOPIESJOB_H

namespace dd::test {

// Shared by both forms: metadata, lanes and iterations, and ranks 0 and 1.
#define DD_RANK_COPIES_JOB_HEAD(COPY_OF)                                       \
  "ddir 1\n"                                                                   \
  "producer \"hand-written\"\n"                                                \
  "device 0 \"GPU\" sms=80\n"                                                  \
  "device 1 \"GPU\" sms=80\n"                                                  \
  "device 2 \"GPU\" sms=80\n"                                                  \
  "device 3 \"GPU\" sms=80\n"                                                  \
  "rank 0 world=4 host=\"node0\"\n"                                            \
  "rank 1 world=4 host=\"node0\"\n"                                            \
  "rank 2 world=4 host=\"node1\"" COPY_OF "\n"                                 \
  "rank 3 world=4 host=\"node1\"" COPY_OF "\n"                                 \
  "lane @c0 cpu-thread \"main\" native=100 rank=0\n"                           \
  "lane @g0 gpu-stream \"stream 7\" native=7 rank=0 device=0\n"                \
  "lane @c1 cpu-thread \"main\" native=101 rank=1\n"                           \
  "lane @g1 gpu-stream \"stream 7\" native=7 rank=1 device=1\n"                \
  "lane @coll comm-channel \"collectives world\"\n"                            \
  "lane @c2 cpu-thread \"main\" native=102 rank=2\n"                           \
  "lane @g2 gpu-stream \"stream 7\" native=7 rank=2 device=2\n"                \
  "lane @c3 cpu-thread \"main\" native=103 rank=3\n"                           \
  "lane @g3 gpu-stream \"stream 7\" native=7 rank=3 device=3\n"                \
  "layer #fc \"model.fc\"\n"                                                   \
  "iteration \"step#1\" start=0 measured=80 rank=0\n"                          \
  "iteration \"step#1\" start=0 measured=90 rank=1\n"                          \
  "iteration \"step#1\" start=0 measured=80 rank=2\n"                          \
  "iteration \"step#1\" start=0 measured=80 rank=3\n"                          \
  "task %l0 runtime @c0 \"cudaLaunchKernel\" start=0 dur=10 phase=forward "    \
  "corr=1\n"                                                                   \
  "task %r0 runtime @c0 \"ncclAllReduce\" start=10 dur=5 corr=2\n"             \
  "task %s0 sync @c0 \"cudaDeviceSynchronize\" start=15 dur=5\n"               \
  "task %k0 kernel @g0 \"gemm\" start=10 dur=40 layer=#fc phase=forward "      \
  "corr=1 bytes=4096 flops=1000000 grid=4,1,1 block=256,1,1 smem=0 regs=32 "   \
  "copy=0\n"                                                                   \
  "task %a0 marker @g0 \"arrive\" start=50 dur=0\n"                            \
  "task %n0 collective @g0 \"nccl:all_reduce\" start=50 dur=30 corr=2 "        \
  "bytes=1048576 flops=0 grid=1,1,1 block=512,1,1 smem=0 regs=0 copy=0\n"      \
  "task %l1 runtime @c1 \"cudaLaunchKernel\" start=0 dur=10 phase=forward "    \
  "corr=1\n"                                                                   \
  "task %r1 runtime @c1 \"ncclAllReduce\" start=10 dur=5 corr=2\n"             \
  "task %s1 sync @c1 \"cudaDeviceSynchronize\" start=15 dur=5\n"               \
  "task %k1 kernel @g1 \"gemm\" start=10 dur=50 layer=#fc phase=forward "      \
  "corr=1 bytes=4096 flops=1000000 grid=4,1,1 block=256,1,1 smem=0 regs=32 "   \
  "copy=0\n"                                                                   \
  "task %a1 marker @g1 \"arrive\" start=60 dur=0\n"                            \
  "task %n1 collective @g1 \"nccl:all_reduce\" start=60 dur=30 corr=2 "        \
  "bytes=1048576 flops=0 grid=1,1,1 block=512,1,1 smem=0 regs=0 copy=0\n"      \
  "task %b collective @coll \"all_reduce\" start=60 dur=25\n"                  \
  "edge %l0 -> %k0 launch\n"                                                   \
  "edge %r0 -> %a0 launch\n"                                                   \
  "edge %a0 -> %b comm\n"                                                      \
  "edge %b -> %n0 sync\n"                                                      \
  "edge %n0 -> %s0 sync\n"                                                     \
  "edge %l1 -> %k1 launch\n"                                                   \
  "edge %r1 -> %a1 launch\n"                                                   \
  "edge %a1 -> %b comm\n"                                                      \
  "edge %b -> %n1 sync\n"                                                      \
  "edge %n1 -> %s1 sync\n"                                                     \
  "note %k0 \"input_shapes\" \"[[64, 128]]\"\n"                                \
  "note %n0 \"group\" \"world\"\n"                                             \
  "note %n0 \"op\" \"sum\"\n"                                                  \
  "note %n1 \"group\" \"world\"\n"                                             \
  "note %b \"group\" \"world\"\n"                                              \
  "memory time=1 bytes=64 total=64\n"                                          \
  "memory time=5 bytes=4096 total=4096 reserved=8192 addr=4096 lane=@c0 "      \
  "device=0\n"                                                                 \
  "memory time=70 bytes=-4096 total=0 reserved=8192 addr=4096 lane=@c0 "       \
  "device=0\n"                                                                 \
  "memory time=5 bytes=8192 total=8192 reserved=8192 addr=4096 lane=@c1 "      \
  "device=1\n"

/// The job with ranks 2 and 3 stored as copies of rank 0.
inline const char *const CompactJob = DD_RANK_COPIES_JOB_HEAD(" copy-of=0");

/// The same job with every rank stored whole, written out by hand.
inline const char *const WholeJob = DD_RANK_COPIES_JOB_HEAD("") R"(
task %l2 runtime @c2 "cudaLaunchKernel" start=0 dur=10 phase=forward corr=1
task %r2 runtime @c2 "ncclAllReduce" start=10 dur=5 corr=2
task %s2 sync @c2 "cudaDeviceSynchronize" start=15 dur=5
task %k2 kernel @g2 "gemm" start=10 dur=40 layer=#fc phase=forward corr=1 bytes=4096 flops=1000000 grid=4,1,1 block=256,1,1 smem=0 regs=32 copy=0
task %a2 marker @g2 "arrive" start=50 dur=0
task %n2 collective @g2 "nccl:all_reduce" start=50 dur=30 corr=2 bytes=1048576 flops=0 grid=1,1,1 block=512,1,1 smem=0 regs=0 copy=0
task %l3 runtime @c3 "cudaLaunchKernel" start=0 dur=10 phase=forward corr=1
task %r3 runtime @c3 "ncclAllReduce" start=10 dur=5 corr=2
task %s3 sync @c3 "cudaDeviceSynchronize" start=15 dur=5
task %k3 kernel @g3 "gemm" start=10 dur=40 layer=#fc phase=forward corr=1 bytes=4096 flops=1000000 grid=4,1,1 block=256,1,1 smem=0 regs=32 copy=0
task %a3 marker @g3 "arrive" start=50 dur=0
task %n3 collective @g3 "nccl:all_reduce" start=50 dur=30 corr=2 bytes=1048576 flops=0 grid=1,1,1 block=512,1,1 smem=0 regs=0 copy=0
edge %l2 -> %k2 launch
edge %r2 -> %a2 launch
edge %a2 -> %b comm
edge %b -> %n2 sync
edge %n2 -> %s2 sync
edge %l3 -> %k3 launch
edge %r3 -> %a3 launch
edge %a3 -> %b comm
edge %b -> %n3 sync
edge %n3 -> %s3 sync
note %k2 "input_shapes" "[[64, 128]]"
note %n2 "group" "world"
note %n2 "op" "sum"
note %k3 "input_shapes" "[[64, 128]]"
note %n3 "group" "world"
note %n3 "op" "sum"
memory time=5 bytes=4096 total=4096 reserved=8192 addr=4096 lane=@c2 device=2
memory time=5 bytes=4096 total=4096 reserved=8192 addr=4096 lane=@c3 device=3
memory time=70 bytes=-4096 total=0 reserved=8192 addr=4096 lane=@c2 device=2
memory time=70 bytes=-4096 total=0 reserved=8192 addr=4096 lane=@c3 device=3
)";

#undef DD_RANK_COPIES_JOB_HEAD

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_RANKCOPIESJOB_H
