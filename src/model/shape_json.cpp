#include "model/shape_json.hpp"

namespace tokscope::model {

nlohmann::json shape_json(const ModelShape& s) {
  return {{"name", s.name},
          {"arch", s.arch},
          {"n_layer", s.n_layer},
          {"n_embd", s.n_embd},
          {"n_head", s.n_head},
          {"n_head_kv", s.n_head_kv},
          {"head_dim", s.head_dim},
          {"n_ff", s.n_ff},
          {"n_vocab", s.n_vocab},
          {"tied_embeddings", s.tied_embeddings},
          {"params", parameter_count(s)},
          {"source", s.source}};
}

}  // namespace tokscope::model
