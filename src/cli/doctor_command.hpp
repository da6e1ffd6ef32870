// `tokscope doctor`: a pre-flight checklist of the platform (frequencies, thermal headroom,
// swap, idle states, other processes, build type, counters, mlock limit), one finding per check
// with its severity and the exact fix. Exit 1 when a blocking finding exists (measurements
// taken now would be wrong), 2 on bad usage, else 0. See docs/doctor.md.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct DoctorCommandOptions;
std::shared_ptr<DoctorCommandOptions> add_doctor_command(CLI::App& app);
int run_doctor_command(const DoctorCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
