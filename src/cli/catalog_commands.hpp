// `tokscope devices`, `tokscope shapes`, `tokscope quants`: the built-in catalogs the sim
// engine and the ceilings use, each value with its source.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>
#include <string>

namespace tokscope::cli {

struct CatalogOptions;
std::shared_ptr<CatalogOptions> add_catalog_commands(CLI::App& app);
int run_catalog_command(const CatalogOptions& options, const std::string& command,
                        std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
