#include "cli/engine_flags.hpp"

namespace tokscope::cli {

void add_engine_flags(CLI::App* cmd, run::Settings& s) {
  cmd->add_option("--engine", s.engine,
                  "Engine adapter: sim (simulated device), rkllm (Rockchip RKLLM runtime)")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--sim-prefill-tps", s.sim_prefill_tps, "sim: prefill speed, tokens/s")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--sim-itl-ms", s.sim_itl_ms, "sim: inter-token latency, ms")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--sim-jitter-ms", s.sim_jitter_ms, "sim: Gaussian jitter sd per interval, ms")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--sim-itl-growth-ms-per-1k-ctx", s.sim_itl_growth_ms_per_1k_ctx,
                  "sim: ITL added per 1000 tokens of context, ms")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--device", s.device,
                  "sim: device profile (rk3588-npu, rk3588-cpu, ax650n; see `tokscope devices`)")
      ->group("sim engine: device model");
  cmd->add_option("--model-shape", s.model_shape,
                  "Model shape from the catalog (see `tokscope shapes`); also gives the ceiling")
      ->group("sim engine: device model");
  cmd->add_option("--quant", s.quant, "Quantization preset (w8a8, w4a16_g128, q4_0, ...)")
      ->group("sim engine: device model");
  cmd->add_option("--model-file", s.model_file,
                  "GGUF whose tensors give W and K for the ceiling (a .rkllm/.axmodel needs "
                  "--model-shape and --quant too: the ceiling is then estimated)")
      ->group("Ceiling");
  const char* rk = "rkllm engine (RK3588 NPU; awaits validation on a board)";
  cmd->add_option("--rkllm-lib", s.rkllm_lib,
                  "librkllmrt.so of the RKLLM runtime (loaded with dlopen; tokscope builds "
                  "without the SDK)")
      ->group(rk);
  cmd->add_option("--rkllm-abi", s.rkllm_abi,
                  "Release the library comes from: 1.2.1, 1.2.2, 1.2.3 or 1.3.0 (struct layouts "
                  "differ and the library cannot say)")
      ->group(rk);
  cmd->add_option("--rkllm-model", s.rkllm_model, "The converted .rkllm model file")->group(rk);
  cmd->add_option("--rkllm-cpus", s.rkllm_cpus,
                  "CPUs the runtime may use (enabled_cpus_mask), e.g. 4-7; default: its own")
      ->group(rk);
  cmd->add_option("--max-context", s.max_context, "Context length the runtime is loaded with")
      ->capture_default_str()
      ->group(rk);
}

}  // namespace tokscope::cli
