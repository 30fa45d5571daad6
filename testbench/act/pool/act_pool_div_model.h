// The Verilated average divider of the pooling unit (tpu_act_pool_div, combinational), built for
// the unit's default window limit (MaxCount = 16) and for MaxCount = 9, for an exhaustive test.
#ifndef TPU_TESTBENCH_ACT_POOL_ACT_POOL_DIV_MODEL_H_
#define TPU_TESTBENCH_ACT_POOL_ACT_POOL_DIV_MODEL_H_

#include <cstdint>
#include <memory>

namespace tpu::tb {

class ActPoolDivModel {
 public:
  virtual ~ActPoolDivModel() = default;
  virtual int sum_width() const = 0;  // bits of the signed sum
  virtual int max_count() const = 0;  // largest count
  // avg_o for sum_i = sum and recip_i = recip_o of count_i = count (settled combinationally).
  virtual int32_t Avg(int32_t sum, int count) = 0;
};

// MaxCount = 16 (SumWidth 12) and MaxCount = 9 (SumWidth 12); library vtpu_act_pool_div.
std::unique_ptr<ActPoolDivModel> MakeActPoolDivModel16();
std::unique_ptr<ActPoolDivModel> MakeActPoolDivModel9();

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_POOL_ACT_POOL_DIV_MODEL_H_
