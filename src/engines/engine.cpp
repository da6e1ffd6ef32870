#include "engines/engine.hpp"

namespace tokscope::engines {

Expected<std::vector<std::int32_t>> Engine::tokenize(std::string_view /*text*/) {
  return make_error(ErrorKind::kUsage, "engine '" + info().name +
                                           "' cannot tokenize text; give --prompt-tokens "
                                           "(exact-length token ids) instead of --dataset");
}

}  // namespace tokscope::engines
