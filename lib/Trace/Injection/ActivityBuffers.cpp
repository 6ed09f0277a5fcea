//===- ActivityBuffers.cpp - CUPTI's buffer callbacks ---------------------===//
//
// CUPTI fills buffers the tracer lends it (bufferRequested) and returns them
// full (bufferCompleted), from its own worker thread or from the thread that
// flushes. The records are copied into the writer there and the buffer goes
// back to the pool at once, so that the pool's cap is on memory held by
// CUPTI, not on the size of the trace.
//
// API records carry only a callback id; the first time an id is seen its
// name (cuptiGetCallbackName: "cudaLaunchKernel_v7000" for the runtime,
// "cuLaunchKernel" for the driver) is written beside it, so the file names
// every API it holds whatever CUPTI version reads it later.
//
//===----------------------------------------------------------------------===//

#include "TracerState.h"

#include <cstdlib>

using namespace dd::trace;

void CUPTIAPI dd::trace::bufferRequested(uint8_t **Buffer, size_t *Size,
                                         size_t *MaxNumRecords) {
  TracerState *T = ActiveTracer.load();
  *MaxNumRecords = 0; // as many as fit
  *Buffer = T && !T->Closed ? T->Pool.acquire() : nullptr;
  *Size = *Buffer ? T->Pool.bufferBytes() : 0;
}

static void nameApi(TracerState &T, const CUpti_Activity *Record) {
  const auto *Api = reinterpret_cast<const ApiRecord *>(Record);
  CUpti_CallbackDomain Domain = Record->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                    ? CUPTI_CB_DOMAIN_RUNTIME_API
                                    : CUPTI_CB_DOMAIN_DRIVER_API;
  uint64_t Key = uint64_t(Domain) << 32 | Api->cbid;
  if (!T.NamedApis.insert(Key).second)
    return;
  const char *Name = nullptr;
  if (T.Api.GetCallbackName(Domain, Api->cbid, &Name) == CUPTI_SUCCESS && Name)
    T.Writer.addApiName(Domain, Api->cbid, Name);
}

void dd::trace::noteDroppedRecords(TracerState &T) {
  size_t Dropped = 0;
  if (T.Api.ActivityGetNumDroppedRecords(nullptr, 0, &Dropped) !=
          CUPTI_SUCCESS ||
      Dropped == 0)
    return;
  T.Dropped += Dropped;
  T.Writer.addDropped(T.Dropped);
}

void CUPTIAPI dd::trace::bufferCompleted(CUcontext Context, uint32_t StreamId,
                                         uint8_t *Buffer, size_t Size,
                                         size_t ValidSize) {
  TracerState *T = ActiveTracer.load();
  if (!T) {
    // Lent by a tracer that failed to start or was forgotten after fork:
    // every buffer comes from posix_memalign.
    std::free(Buffer);
    return;
  }
  {
    std::unique_lock<std::timed_mutex> Lock(T->WriterMutex, std::defer_lock);
    if (lockTracer(*T, Lock) && !T->Closed && Buffer) {
      CUpti_Activity *Record = nullptr;
      while (T->Api.ActivityGetNextRecord(Buffer, ValidSize, &Record) ==
             CUPTI_SUCCESS) {
        if (Record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
            Record->kind == CUPTI_ACTIVITY_KIND_DRIVER)
          nameApi(*T, Record);
        T->Writer.addRecord(Record);
      }
      noteDroppedRecords(*T);
    }
  }
  T->Pool.release(Buffer);
}
