#include "model/catalog_names.hpp"

#include "model/quant.hpp"
#include "model/shapes.hpp"

namespace tokscope::model {
namespace {

template <class Range>
std::string join_names(const Range& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item.name;
  }
  return out;
}

}  // namespace

std::string known_shape_names() {
  return join_names(shape_catalog());
}
std::string known_quant_names() {
  return join_names(quant_presets());
}

}  // namespace tokscope::model
