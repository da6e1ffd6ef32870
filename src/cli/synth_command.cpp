#include "cli/synth_command.hpp"

#include <fmt/format.h>

#include <ostream>

#include "cli/output.hpp"
#include "model/catalog_names.hpp"
#include "model/shapes.hpp"
#include "model/synth_model.hpp"

namespace tokscope::cli {

struct SynthCommandOptions {
  std::string shape;
  std::string quant = "q4_0";
  std::string vocab_from;
  std::uint64_t seed = 42;
  std::uint32_t context_length = 4096;
  std::string out;
  std::string format = "md";
};

std::shared_ptr<SynthCommandOptions> add_synth_command(CLI::App& app) {
  auto o = std::make_shared<SynthCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "synth-model", "Write a loadable GGUF with random weights of a named real model shape");
  cmd->footer(R"(
The file has the shape's real architecture metadata and tensor shapes, seeded random weights
(sd ~0.02, no NaN/Inf) and tokscope.synthetic_weights = true; every result from it says
synthetic_weights: true. It lets you benchmark the speed of a shape without its weights.

Examples:
  tokscope synth-model --shape qwen2.5-0.5b --quant q4_0 --out qwen2.5-0.5b-synth-q4_0.gguf
  tokscope synth-model --shape llama-3.2-1b --quant q8_0 --vocab-from tokenizer.gguf --out x.gguf)");
  cmd->add_option("--shape", o->shape, "Model shape from `tokscope shapes`")->required();
  cmd->add_option("--quant", o->quant, "q4_0 | q8_0 | f16")
      ->check(CLI::IsMember({"q4_0", "q8_0", "f16"}))
      ->capture_default_str();
  cmd->add_option("--vocab-from", o->vocab_from,
                  "Copy the tokenizer (tokenizer.* keys) from this GGUF; its size sets n_vocab");
  cmd->add_option("--seed", o->seed, "Seed of the random weights")->capture_default_str();
  cmd->add_option("--context-length", o->context_length, "Context length written in the file")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output .gguf path")->required();
  cmd->add_option("-o,--format", o->format, "Summary format: md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  return o;
}

int run_synth(const SynthCommandOptions& o, std::ostream& out, std::ostream& err) {
  const model::ModelShape* shape = model::find_shape(o.shape);
  if (shape == nullptr) {
    err << fmt::format("tokscope synth-model: error: --shape {}: unknown shape; known: {}\n",
                       o.shape, model::known_shape_names());
    return 2;
  }
  model::SynthOptions so;
  so.shape = shape;
  so.quant = o.quant;
  so.seed = o.seed;
  so.context_length = o.context_length;
  if (!o.vocab_from.empty()) so.vocab_from = o.vocab_from;
  auto summary = model::write_synthetic_model(so, o.out);
  if (!summary) {
    err << "tokscope synth-model: error: " << summary.error().message << "\n";
    return exit_code_for(summary.error());
  }
  if (o.format == "json") {
    out << summary->dump(2) << "\n";
  } else {
    out << fmt::format(
        "Wrote {} ({:.3f} GB): {} in {}, {} tensors, vocabulary {}, seed {}.\n"
        "SYNTHETIC WEIGHTS: speed only; its outputs are meaningless. Inspect it with "
        "`tokscope inspect {}`.\n",
        o.out, summary->at("size_bytes").get<double>() / 1e9, shape->name, o.quant,
        summary->at("tensors").get<std::size_t>(), summary->at("vocabulary").get<std::string>(),
        o.seed, o.out);
  }
  return 0;
}

}  // namespace tokscope::cli
