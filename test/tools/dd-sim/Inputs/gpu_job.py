"""Writes, as a .ddir text graph, a job whose GPU runs kernels on one
stream and, if asked, NCCL collectives too (--collectives) and a second
stream for every other kernel and the collectives (--two-streams): CPU
launches with gaps, kernels queued behind each other, a synchronize every
50 steps. Large enough (a few thousand tasks) for dd-sim's windowed sweep."""
import sys

collectives = "--collectives" in sys.argv
two_streams = "--two-streams" in sys.argv
print("ddir 1")
print('producer "gpu_job.py"')
print('device 0 "Test GPU" sms=80')
print('lane @cpu cpu-thread "main" native=100 rank=0')
print('lane @s gpu-stream "stream 7" native=7 rank=0 device=0')
if two_streams:
    print('lane @n gpu-stream "stream 24" native=24 rank=0 device=0')
print('iteration "step#1" start=0 measured=300000')
edges = []
t = 0
for i in range(1500):
    kind = "collective" if collectives and i % 7 == 3 else "kernel"
    name = "ncclAllReduce" if kind == "collective" else "gemm_%d" % (i % 5)
    print('task %%l%d runtime @cpu "cudaLaunchKernel" start=%d dur=8 gap=%d corr=%d'
          % (i, t, 2 + i % 3, i + 1))
    stream = "@n" if two_streams and (kind == "collective" or i % 2) else "@s"
    print('task %%k%d %s %s "%s" start=%d dur=%d corr=%d'
          % (i, kind, stream, name, t + 10, 30 + (i * 37) % 90, i + 1))
    edges.append("edge %%l%d -> %%k%d launch" % (i, i))
    if i % 50 == 49:
        print('task %%y%d sync @cpu "cudaStreamSynchronize" start=%d dur=5'
              % (i, t + 12))
        edges.append("edge %%k%d -> %%y%d sync" % (i, i))
    t += 20
print("\n".join(edges))
