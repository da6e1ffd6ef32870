// The JSON form of a catalog shape, shared by the result's "model" object, the device model's
// description and `tokscope shapes -o json`, so the three cannot name a field differently.
#pragma once

#include <nlohmann/json.hpp>

#include "model/shapes.hpp"

namespace tokscope::model {

// {name, arch, n_layer, n_embd, n_head, n_head_kv, head_dim, n_ff, n_vocab, tied_embeddings,
//  params, source}
nlohmann::json shape_json(const ModelShape& shape);

}  // namespace tokscope::model
