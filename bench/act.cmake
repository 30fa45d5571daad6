# ---- Activation pipeline: requantization stage (tpu_act_requant) -----------------------------
# Steady-state rows per cycle at N = 8, 16 and 32, unstalled (target 1.0) and with the consumer
# stalling 10% of the cycles (for reference), results checked against the golden reference.
tpu_add_act_requant_model(32 EXCLUDE_FROM_ALL)
tpu_add_bench(bench_act SOURCES bench_act.cpp
  LIBS tpu_golden vtpu_act_requant_n8 vtpu_act_requant_n16 vtpu_act_requant_n32)
# ---- end of requantization stage ----
# ---- Activation pipeline top (tpu_act: requantization -> pooling) ----------------------------
# Steady-state input rows per cycle of the whole pipeline at N = 8 and 16, in bypass and with
# 2x2 max pooling of 28x28 images (target 1.0 both), results checked against the golden reference.
tpu_add_bench(bench_act_top SOURCES bench_act_top.cpp LIBS tpu_golden vtpu_act_n8 vtpu_act_n16)
# ---- end of activation pipeline top ----
