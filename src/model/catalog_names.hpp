// Comma-separated names of the built-in catalogs, for error messages that list what is known
// ("--quant w5a5: unknown; known: f16, q8_0, ...").
#pragma once

#include <string>

namespace tokscope::model {

std::string known_shape_names();
std::string known_quant_names();

}  // namespace tokscope::model
