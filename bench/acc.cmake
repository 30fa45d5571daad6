# ---- Accumulators: rows per cycle of the fill and drain streams ------------------------------
# The tests' N=16 model (1024 rows) and an N=32 model of the default depth, built for this only.
tpu_add_acc_model(32 1024 EXCLUDE_FROM_ALL)
tpu_add_bench(bench_acc SOURCES bench_acc.cpp LIBS vtpu_acc_n16 vtpu_acc_n32)
