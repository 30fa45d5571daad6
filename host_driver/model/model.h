// The reference machine of the TPU instruction set, namespace tpu::model:
//   model/machine.h        Machine: device memories + Run(program) in program order
//   model/run_result.h     RunResult: halted, device error (code, index) or model error
//   model/host_memory.h    HostMemory: sparse 48-bit host address space, fault injection
//   model/sparse_memory.h  SparseMemory: paged byte store (host memory, weight DRAM)
//   model/activate.h       ACTIVATE arithmetic, parameter-set layout
//   model/matmul_kernel.h  MATMUL arithmetic: a block of rows times a packed tile
//   model/access.h         the memory each instruction reads and writes
//   model/ordering.h       FindUnorderedAccess: are all cross-unit hazards ordered by tokens?
//   model/schedule.h       SimulateSchedule: in-order dispatch, queues, FIFO: deadlock or HALT?
#ifndef TPU_MODEL_MODEL_H_
#define TPU_MODEL_MODEL_H_

#include "model/access.h"
#include "model/activate.h"
#include "model/host_memory.h"
#include "model/machine.h"
#include "model/matmul_kernel.h"
#include "model/ordering.h"
#include "model/run_result.h"
#include "model/schedule.h"
#include "model/sparse_memory.h"

#endif  // TPU_MODEL_MODEL_H_
